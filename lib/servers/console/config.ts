import "server-only";
import { z } from "zod";
import { envSlice } from "@/lib/config/slice";

/** The serial console in the browser: its tickets and how long a session may last. */
export type ConsoleSettings = {
  ticketTtlSeconds: number;
  /** Servers whose console one account may hold open (or hold an unused ticket for) at once. */
  maxPerAccount: number;
  /** A session with no input from its client for this long is closed. */
  idleTimeoutSeconds: number;
  /** A session is closed this long after it opened, whatever happens in it. */
  maxSeconds: number;
  /** `console.opened` is announced at most once per server in a window of this many minutes. */
  openedEventMinutes: number;
  /** Client input taken per second (after a first burst); faster input waits in the client's socket. */
  inputBytesPerSecond: number;
  /** A client that stays behind the console's output this long is cut off. */
  behindSeconds: number;
};

export const CONSOLE_SETTINGS = envSlice({
  name: "console",
  shape: {
    CONSOLE_TICKET_TTL_SECONDS: z.coerce.number().int().min(5).max(300).default(30),
    CONSOLE_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(100).default(3),
    CONSOLE_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(86_400).default(900),
    CONSOLE_MAX_SECONDS: z.coerce.number().int().min(10).max(86_400).default(14_400),
    CONSOLE_OPENED_EVENT_MINUTES: z.coerce.number().int().min(1).max(1_440).default(10),
    CONSOLE_INPUT_BYTES_PER_SECOND: z.coerce.number().int().min(1_024).max(1_048_576).default(16_384),
    CONSOLE_BEHIND_SECONDS: z.coerce.number().int().min(1).max(300).default(20),
  },
  derive: (values): ConsoleSettings => ({
    ticketTtlSeconds: values.CONSOLE_TICKET_TTL_SECONDS,
    maxPerAccount: values.CONSOLE_MAX_PER_ACCOUNT,
    idleTimeoutSeconds: values.CONSOLE_IDLE_TIMEOUT_SECONDS,
    maxSeconds: values.CONSOLE_MAX_SECONDS,
    openedEventMinutes: values.CONSOLE_OPENED_EVENT_MINUTES,
    inputBytesPerSecond: values.CONSOLE_INPUT_BYTES_PER_SECOND,
    behindSeconds: values.CONSOLE_BEHIND_SECONDS,
  }),
});

export const consoleSettings = () => CONSOLE_SETTINGS.read();
