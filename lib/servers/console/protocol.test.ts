import { describe, expect, it } from "vitest";
import { offeredTicket, originAllowed } from "./gateway";
import { CLOSE_REASONS, closeReasonOf, consoleSocketServerId, parseClientMessage } from "./protocol";

describe("the console protocol", () => {
  it("reads the server id of the socket path only", () => {
    expect(consoleSocketServerId("/api/v1/servers/42/console/socket")).toBe(42);
    expect(consoleSocketServerId("/api/v1/servers/42/console/socket?ticket=x")).toBe(42);
    for (const path of [
      "/api/v1/servers/0/console/socket",
      "/api/v1/servers/042/console/socket",
      "/api/v1/servers/42/console",
      "/api/v1/servers/42/console/socket/",
      "/api/v1/servers/99999999999/console/socket",
      "/api/v1/servers/4294967296/console/socket",
      undefined,
    ]) {
      expect(consoleSocketServerId(path), String(path)).toBeUndefined();
    }
  });

  it("accepts resize within bounds and close, nothing else", () => {
    expect(parseClientMessage('{"type":"resize","cols":120,"rows":40}')).toEqual({
      type: "resize",
      cols: 120,
      rows: 40,
    });
    expect(parseClientMessage('{"type":"close"}')).toEqual({ type: "close" });
    for (const text of [
      "not json",
      "null",
      '"resize"',
      '{"type":"resize","cols":0,"rows":40}',
      '{"type":"resize","cols":120,"rows":201}',
      '{"type":"resize","cols":1.5,"rows":40}',
      '{"type":"resize","cols":120,"rows":40,"extra":1}',
      '{"type":"close","now":true}',
      '{"type":"input","data":"ls"}',
    ]) {
      expect(parseClientMessage(text), text).toBeUndefined();
    }
  });

  it("gives every close reason its own code, and finds the reason again from the code", () => {
    const codes = Object.values(CLOSE_REASONS).map((reason) => reason.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(closeReasonOf(4002)).toBe("machine_stopped");
    expect(closeReasonOf(1006)).toBeUndefined();
  });

  it("takes the ticket only beside our subprotocol", () => {
    expect(offeredTicket("vps-console.v1, ticket.vpsct_abc")).toBe("vpsct_abc");
    expect(offeredTicket("ticket.vpsct_abc,vps-console.v1")).toBe("vpsct_abc");
    expect(offeredTicket("ticket.vpsct_abc")).toBeUndefined();
    expect(offeredTicket("vps-console.v1")).toBeUndefined();
    expect(offeredTicket(undefined)).toBeUndefined();
  });

  it("lets a browser open a console only from this service's own origin", () => {
    expect(originAllowed("https://vps.example.com", "127.0.0.1:3001", "https://vps.example.com")).toBe(true);
    expect(originAllowed("https://evil.example", "vps.example.com", "https://vps.example.com")).toBe(false);
    expect(originAllowed("http://vps.example.com", "vps.example.com", "https://vps.example.com")).toBe(false);
    // Without PUBLIC_BASE_URL: the Host the request was sent to.
    expect(originAllowed("http://127.0.0.1:3000", "127.0.0.1:3000", undefined)).toBe(true);
    expect(originAllowed("http://127.0.0.1:3000", "127.0.0.1:3001", undefined)).toBe(false);
    expect(originAllowed("null", "127.0.0.1:3000", undefined)).toBe(false);
    expect(originAllowed("file://", "127.0.0.1:3000", undefined)).toBe(false);
    expect(originAllowed("http://LOCALHOST:3000", "localhost:3000", undefined)).toBe(true);
  });
});
