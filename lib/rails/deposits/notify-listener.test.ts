import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotifyListener } from "./notify-listener";

const SECRET = "a-notify-secret-of-at-least-32-characters";

describe("the block-notify listener", () => {
  const listener = new NotifyListener({ host: "127.0.0.1", port: 0, secret: SECRET });
  const notices: string[] = [];
  let base = "";

  beforeAll(async () => {
    listener.register("litecoin", () => notices.push("litecoin"));
    await listener.start();
    base = `http://127.0.0.1:${listener.port}`;
  });
  afterAll(() => listener.stop());

  const send = (path: string, init: { method?: string; secret?: string } = {}) =>
    fetch(`${base}${path}`, {
      method: init.method ?? "POST",
      headers: init.secret === undefined ? {} : { authorization: `Bearer ${init.secret}` },
    });

  it("wakes the network's watcher on a notice with the secret", async () => {
    const response = await send("/notify/litecoin", { secret: SECRET });
    expect(response.status).toBe(204);
    expect(notices).toEqual(["litecoin"]);
  });

  it("refuses a notice without the secret, or with another, and wakes nothing", async () => {
    expect((await send("/notify/litecoin")).status).toBe(401);
    expect((await send("/notify/litecoin", { secret: `${SECRET}x` })).status).toBe(401);
    expect((await send("/notify/litecoin", { secret: SECRET.slice(1) })).status).toBe(401);
    expect(notices).toEqual(["litecoin"]);
  });

  it("answers 404 for a network nobody watches and 405 for other methods", async () => {
    expect((await send("/notify/bitcoin", { secret: SECRET })).status).toBe(404);
    expect((await send("/", { secret: SECRET })).status).toBe(404);
    expect((await send("/notify/litecoin", { method: "GET", secret: SECRET })).status).toBe(405);
    expect(notices).toEqual(["litecoin"]);
  });

  it("stops routing a network once its link unregisters", async () => {
    const other = listener.register("bitcoin", () => notices.push("bitcoin"));
    expect((await send("/notify/bitcoin", { secret: SECRET })).status).toBe(204);
    other();
    expect((await send("/notify/bitcoin", { secret: SECRET })).status).toBe(404);
    expect(notices).toEqual(["litecoin", "bitcoin"]);
  });
});
