/**
 * The console on the simulated provisioner: tickets over the API, the WebSocket and its protocol, every
 * refusal, the per-account limit, the idle and maximum lengths, and the operator's record. The real
 * machines' console (virsh on local and remote hosts) is tested in e2e/vm/console.test.ts.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import {
  connectConsole,
  isRefusal,
  openConsole,
  type Refusal,
  requestTicket,
} from "../support/console-client";
import { startReceiver } from "../support/webhook-receiver";
import { fund } from "./funding";
import { TEST_LIMITS } from "./global-setup";
import { api, createAccount, errorCode, randomIp, until, waitForServer } from "./helpers";

const appUrl = () => inject("baseUrl");

/** An account with `count` active simulated servers. */
async function accountWithServers(count: number) {
  const { apiKey } = await createAccount();
  await fund(apiKey, 30);
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const ordered = await api("/servers", {
      method: "POST",
      key: apiKey,
      body: {
        plan: "pup",
        location: "nl",
        os: "debian-12",
        hostname: `console-${i}-${Date.now().toString(36)}`,
      },
    });
    expect(ordered.status).toBe(201);
    ids.push(ordered.body.id as number);
  }
  for (const id of ids) await waitForServer(apiKey, id, (s) => s.status === "active");
  return { apiKey, ids };
}

const socketUrl = (id: number) => `${appUrl().replace(/^http/, "ws")}/api/v1/servers/${id}/console/socket`;

describe("the console (simulated provisioner)", () => {
  it("issues a single-use ticket, and the WebSocket carries the demo shell both ways", async () => {
    const { apiKey, ids } = await accountWithServers(1);
    const id = ids[0] as number;
    const hostname = (await api(`/servers/${id}`, { key: apiKey })).body.hostname as string;
    const ticket = await requestTicket(appUrl(), apiKey, id);
    expect(ticket.status).toBe(201);
    expect(ticket.headers.get("cache-control")).toBe("no-store");
    expect(ticket.body).toMatchObject({
      protocol: "vps-console.v1",
      demo: true,
      websocket_url: socketUrl(id),
    });
    expect(ticket.body.ticket).toMatch(/^vpsct_[A-Za-z0-9_-]{43}$/);
    // The service's business clock (other test files move it forward): GET /demo/clock reads it.
    const serviceNow = Date.parse((await api("/demo/clock")).body.now as string);
    const ttl = Date.parse(ticket.body.expires_at) - serviceNow;
    expect(ttl).toBeGreaterThan(20_000);
    expect(ttl).toBeLessThanOrEqual(31_000);

    const console1 = await openConsole(ticket.body.websocket_url, ticket.body.ticket);
    expect(console1.ws.protocol).toBe("vps-console.v1");
    await console1.waitFor(`root@${hostname}:~# `);
    expect(console1.output()).toContain("[demo]");
    expect(console1.output()).toContain("demo machine");
    expect(console1.messages[0]).toMatchObject({
      type: "ready",
      server_id: id,
      demo: true,
      idle_timeout_seconds: TEST_LIMITS.consoleIdleSeconds,
    });
    console1.type("hostname\r");
    await console1.waitFor(`hostname\r\n${hostname}\r\n`);
    // Resize is a control message; the demo shell reports it like `stty size`.
    console1.control({ type: "resize", cols: 132, rows: 43 });
    console1.type("stty size\r");
    await console1.waitFor("43 132");

    // The same ticket again: refused before any upgrade, while the first session is still open.
    const again = await connectConsole(ticket.body.websocket_url, ticket.body.ticket);
    expect(isRefusal(again) && again.status).toBe(401);
    expect((again as Refusal).body.error).toBe("invalid_ticket");

    console1.control({ type: "close" });
    const closed = await console1.closed;
    expect(closed).toEqual({ code: 1000, reason: "ended" });
    expect(console1.messages.at(-1)).toMatchObject({ type: "closed", reason: "ended" });
  });

  it("gives a dashboard session a ticket through the BFF; the WebSocket then needs the ticket only", async () => {
    const bff = (path: string, cookie: string, origin = appUrl()) =>
      fetch(`${appUrl()}/bff${path}`, {
        method: "POST",
        headers: { cookie, origin, "content-type": "application/json", "x-forwarded-for": randomIp() },
        body: "{}",
      });
    const signUp = await bff("/sign-up", "");
    expect(signUp.status).toBe(201);
    const cookie = (signUp.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const { api_key: apiKey } = (await signUp.json()) as { api_key: string };
    await fund(apiKey, 25);
    const ordered = await api("/servers", {
      method: "POST",
      key: apiKey,
      body: { plan: "pup", location: "nl", os: "debian-12" },
    });
    const id = ordered.body.id as number;
    await waitForServer(apiKey, id, (s) => s.status === "active");

    const foreign = await bff(`/servers/${id}/console`, cookie, "https://evil.example");
    expect(foreign.status).toBe(403);
    const granted = await bff(`/servers/${id}/console`, cookie);
    expect(granted.status).toBe(201);
    const ticket = (await granted.json()) as { ticket: string; websocket_url: string; demo: boolean };
    expect(ticket.demo).toBe(true);
    // What a page does: same origin, the ticket as a subprotocol, no cookie.
    const session = await openConsole(ticket.websocket_url, ticket.ticket, appUrl());
    session.type("whoami\r");
    await session.waitFor("whoami\r\nroot\r\n");
    session.ws.close();
    await session.closed;
  });

  it("refuses without a ticket, with another account's ticket, from a foreign Origin, and after expiry", async () => {
    const [mine, theirs] = await Promise.all([accountWithServers(1), accountWithServers(1)]);
    const myId = mine.ids[0] as number;
    const theirId = theirs.ids[0] as number;

    const none = await connectConsole(socketUrl(myId), undefined);
    expect(isRefusal(none) && none.status).toBe(401);
    const noProtocol = await connectConsole(socketUrl(myId), undefined, { protocols: ["ticket.vpsct_x"] });
    expect(isRefusal(noProtocol) && noProtocol.status).toBe(401);

    // Another account's ticket is bound to its own server: presented here it is refused, and stays theirs.
    const theirTicket = (await requestTicket(appUrl(), theirs.apiKey, theirId)).body;
    const stolen = await connectConsole(socketUrl(myId), theirTicket.ticket);
    expect(isRefusal(stolen) && stolen.status).toBe(401);
    // Another account's server: no ticket at all.
    const foreignServer = await api(`/servers/${theirId}/console`, { method: "POST", key: mine.apiKey });
    expect(foreignServer.status).toBe(404);

    // A page of another site cannot use a ticket; the refusal does not use it up.
    const forged = await connectConsole(theirTicket.websocket_url, theirTicket.ticket, {
      origin: "https://evil.example",
    });
    expect(isRefusal(forged) && forged.status).toBe(403);
    expect((forged as Refusal).body.error).toBe("forbidden_origin");
    const ownOrigin = await openConsole(theirTicket.websocket_url, theirTicket.ticket, appUrl());
    await ownOrigin.waitFor("# ");
    ownOrigin.ws.close();

    // An unused ticket dies after its 30 seconds (the test clock moves past them).
    const expiring = (await requestTicket(appUrl(), mine.apiKey, myId)).body;
    expect((await api("/demo/clock", { method: "POST", body: { advance_seconds: 31 } })).status).toBe(200);
    const expired = await connectConsole(expiring.websocket_url, expiring.ticket);
    expect(isRefusal(expired) && expired.status).toBe(401);

    // A plain GET of the socket path says what it is.
    const plain = await api(`/servers/${myId}/console/socket`, { key: mine.apiKey });
    expect(plain.status).toBe(426);
    expect(errorCode(plain)).toBe("upgrade_required");
    expect(plain.headers.get("upgrade")).toBe("websocket");
  });

  it("needs an active, running server, and holds the account's limit of open consoles", async () => {
    const { apiKey, ids } = await accountWithServers(TEST_LIMITS.consoles + 1);
    const [first, second, third] = ids as [number, number, number];
    expect(
      (await api(`/servers/${third}/actions`, { method: "POST", key: apiKey, body: { action: "stop" } }))
        .status,
    ).toBe(200);
    await waitForServer(apiKey, third, (s) => s.power_state === "stopped");
    const stopped = await api(`/servers/${third}/console`, { method: "POST", key: apiKey });
    expect(stopped.status).toBe(409);
    expect(errorCode(stopped)).toBe("server_stopped");
    expect((await api("/servers/999999/console", { method: "POST", key: apiKey })).status).toBe(404);
    expect((await api(`/servers/${first}/console`, { method: "POST" })).status).toBe(401);
    await api(`/servers/${third}/actions`, { method: "POST", key: apiKey, body: { action: "start" } });
    await waitForServer(apiKey, third, (s) => s.power_state === "running");

    // Two servers' consoles open: a third server's ticket is refused.
    const a = await requestTicket(appUrl(), apiKey, first);
    const b = await requestTicket(appUrl(), apiKey, second);
    const consoleA = await openConsole(a.body.websocket_url, a.body.ticket);
    const consoleB = await openConsole(b.body.websocket_url, b.body.ticket);
    const over = await api(`/servers/${third}/console`, { method: "POST", key: apiKey });
    expect(over.status).toBe(429);
    expect(errorCode(over)).toBe("too_many_consoles");
    // A server already held may open again: the new console replaces the older one.
    const a2 = await requestTicket(appUrl(), apiKey, first);
    expect(a2.status).toBe(201);
    const consoleA2 = await openConsole(a2.body.websocket_url, a2.body.ticket);
    expect(await consoleA.closed).toEqual({ code: 4003, reason: "replaced" });
    await consoleA2.waitFor("# ");
    // Closing one frees its place.
    consoleB.ws.close();
    await consoleB.closed;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const c = await requestTicket(appUrl(), apiKey, third);
    expect(c.status).toBe(201);
    consoleA2.ws.close();
  });

  it("is no host operation: opens while a reboot runs, and tickets use none of the account's host operations", async () => {
    const { apiKey, ids } = await accountWithServers(1);
    const id = ids[0] as number;
    const power = (action: string) =>
      api(`/servers/${id}/actions`, { method: "POST", key: apiKey, body: { action } });
    const first = await requestTicket(appUrl(), apiKey, id);
    const console1 = await openConsole(first.body.websocket_url, first.body.ticket);
    await console1.waitFor("# ");

    // A reboot is under way (a simulated host call takes a second): the server refuses other host
    // operations, yet its console may open, to watch the boot.
    const rebooting = power("reboot");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(errorCode(await power("stop"))).toBe("server_busy");
    const during = await requestTicket(appUrl(), apiKey, id);
    expect(during.status).toBe(201);
    const console2 = await openConsole(during.body.websocket_url, during.body.ticket);
    expect((await rebooting).status).toBe(200);
    await console2.waitFor("Rebooting (simulated)");
    expect(await console1.closed).toEqual({ code: 4003, reason: "replaced" });

    // More tickets than the account may start host operations: each is granted, and power still answers.
    for (let i = 0; i <= TEST_LIMITS.hostOperations; i++) {
      expect((await api(`/servers/${id}/console`, { method: "POST", key: apiKey })).status).toBe(201);
    }
    expect((await power("reboot")).status).toBe(200);
    console2.ws.close();
    await console2.closed;
  });

  it("closes a console after its idle time, and another at its longest length however busy", async () => {
    const { apiKey, ids } = await accountWithServers(2);
    const idle = await requestTicket(appUrl(), apiKey, ids[0] as number);
    const busy = await requestTicket(appUrl(), apiKey, ids[1] as number);
    const quiet = await openConsole(idle.body.websocket_url, idle.body.ticket);
    const typing = await openConsole(busy.body.websocket_url, busy.body.ticket);
    const opened = Date.now();
    const keys = setInterval(() => typing.type("echo still here\r"), 1_000);
    try {
      expect(await quiet.closed).toEqual({ code: 4000, reason: "idle" });
      expect((Date.now() - opened) / 1000).toBeGreaterThanOrEqual(TEST_LIMITS.consoleIdleSeconds - 1);
      expect(await typing.closed).toEqual({ code: 4001, reason: "max_duration" });
      expect((Date.now() - opened) / 1000).toBeGreaterThanOrEqual(TEST_LIMITS.consoleMaxSeconds - 1);
      expect(typing.messages.at(-1)).toMatchObject({ type: "closed", reason: "max_duration" });
    } finally {
      clearInterval(keys);
    }
  });

  it.runIf(inject("dbTarget") === "postgres")(
    "records every session for the operator: who, which server, when, from where; never the ticket",
    async () => {
      const { apiKey, ids } = await accountWithServers(1);
      const id = ids[0] as number;
      const ticket = await requestTicket(appUrl(), apiKey, id);
      const session = await openConsole(ticket.body.websocket_url, ticket.body.ticket);
      session.type("secret-typed-text\r");
      await session.waitFor("secret-typed-text");
      session.ws.close();
      await session.closed;
      await new Promise((resolve) => setTimeout(resolve, 300));
      const client = new pg.Client({ connectionString: inject("testDatabaseUrl") });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT * FROM console_sessions WHERE id = $1", [
          ticket.body.session_id,
        ]);
        expect(rows).toHaveLength(1);
        const row = rows[0];
        expect(row).toMatchObject({ server_id: id, requested_from: "127.0.0.1", close_reason: "ended" });
        expect(row.opened_at).toBeInstanceOf(Date);
        expect(row.closed_at.getTime()).toBeGreaterThanOrEqual(row.opened_at.getTime());
        expect(row.opened_from).toBeTruthy();
        expect(JSON.stringify(row)).not.toContain(ticket.body.ticket);
        expect(JSON.stringify(row)).not.toContain("secret-typed-text");
      } finally {
        await client.end();
      }
    },
  );

  it("never writes a ticket to the app's output: a session and its refusals leave their lines, not the ticket", async () => {
    const { apiKey, ids } = await accountWithServers(1);
    const id = ids[0] as number;
    const hostname = (await api(`/servers/${id}`, { key: apiKey })).body.hostname as string;
    const ticket = (await requestTicket(appUrl(), apiKey, id)).body;
    const session = await openConsole(ticket.websocket_url, ticket.ticket);
    session.type("hostname\r");
    await session.waitFor(`${hostname}\r\n`);
    session.ws.close();
    await session.closed;
    // Refused: the used ticket again, one that never existed, and a good one from another site.
    const fresh = (await requestTicket(appUrl(), apiKey, id)).body;
    const refusals = await Promise.all([
      connectConsole(ticket.websocket_url, ticket.ticket),
      connectConsole(ticket.websocket_url, `vpsct_${"A".repeat(43)}`),
      connectConsole(fresh.websocket_url, fresh.ticket, { origin: "https://evil.example" }),
    ]);
    expect(refusals.map((r) => isRefusal(r) && r.status)).toEqual([401, 401, 403]);
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Everything the suite's app has written so far, this session's lines included (by its number only).
    const output = readFileSync(inject("appOutputFile"), "utf8");
    expect(output).toContain(`console session ${ticket.session_id} (server ${id}) closed`);
    for (const secret of [ticket.ticket, fresh.ticket, ticket.ticket.slice("vpsct_".length)]) {
      expect(output).not.toContain(secret);
    }
    expect(output).not.toMatch(/vpsct_/);
  });

  it("counts tickets per server and per account; a refused one costs nothing", async () => {
    const { apiKey, ids } = await accountWithServers(2);
    const [first, second] = ids as [number, number];
    for (let i = 0; i < TEST_LIMITS.consoleTicketsServer; i++) {
      expect((await requestTicket(appUrl(), apiKey, first)).status).toBe(201);
    }
    const perServer = await requestTicket(appUrl(), apiKey, first);
    expect([perServer.status, perServer.body.error]).toEqual([429, "rate_limited"]);
    expect(Number(perServer.headers.get("retry-after"))).toBeGreaterThan(0);
    // The account's own limit covers its other servers too; the refusal above was not counted against it.
    for (let i = TEST_LIMITS.consoleTicketsServer; i < TEST_LIMITS.consoleTickets; i++) {
      expect((await requestTicket(appUrl(), apiKey, second)).status).toBe(201);
    }
    const perAccount = await requestTicket(appUrl(), apiKey, second);
    expect([perAccount.status, perAccount.body.error]).toEqual([429, "rate_limited"]);
    // Another account's server is not found, and counts against neither.
    const other = await createAccount();
    expect((await requestTicket(appUrl(), other.apiKey, second)).status).toBe(404);
  });

  it("announces console.opened at most once per server in a window", async () => {
    const receiver = await startReceiver();
    try {
      const { apiKey, ids } = await accountWithServers(1);
      const id = ids[0] as number;
      const hook = await api("/webhooks", {
        method: "POST",
        key: apiKey,
        body: { url: `${receiver.url}/opened`, events: ["console.opened"] },
      });
      expect(hook.status).toBe(201);
      const openAndClose = async () => {
        const ticket = await requestTicket(appUrl(), apiKey, id);
        const session = await openConsole(ticket.body.websocket_url, ticket.body.ticket);
        await session.waitFor("# ");
        session.ws.close();
        await session.closed;
        return ticket.body.session_id;
      };
      const firstSession = await openAndClose();
      await openAndClose();
      await openAndClose();
      await until(
        async () => receiver.received.length,
        (n) => n >= 1,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(receiver.received).toHaveLength(1);
      expect(JSON.parse(receiver.received[0]?.body ?? "{}")).toMatchObject({
        type: "console.opened",
        data: { session_id: firstSession, server: { id } },
      });
      // A window later (the service's clock), the next console is announced again.
      const window = TEST_LIMITS.consoleOpenedEventMinutes * 60 + 1;
      expect((await api("/demo/clock", { method: "POST", body: { advance_seconds: window } })).status).toBe(
        200,
      );
      await openAndClose();
      await until(
        async () => receiver.received.length,
        (n) => n >= 2,
      );
    } finally {
      await receiver.close();
    }
  });

  it("counts made-up tickets against the address's limit of bad API keys, and past it refuses before looking", async () => {
    const { apiKey, ids } = await accountWithServers(1);
    const id = ids[0] as number;
    const address = randomIp();
    const from = { headers: { "x-forwarded-for": address } };
    for (let i = 0; i < TEST_LIMITS.authFailures; i++) {
      const made = await connectConsole(socketUrl(id), `vpsct_${"B".repeat(40)}${i}`, from);
      expect(isRefusal(made) && [made.status, made.body.error]).toEqual([401, "invalid_ticket"]);
    }
    const over = await connectConsole(socketUrl(id), `vpsct_${"C".repeat(43)}`, from);
    expect(isRefusal(over) && [over.status, over.body.error]).toEqual([429, "rate_limited"]);
    expect(Number((over as Refusal).headers["retry-after"])).toBeGreaterThan(0);
    // The same counter as bad API keys: that address's next bad key is refused too.
    const badKey = await api("/account", { key: `vpsk_${"x".repeat(40)}`, ip: address });
    expect(badKey.status).toBe(429);
    // A good ticket from that address waits for the window too (it is not looked up); from elsewhere it opens.
    const ticket = (await requestTicket(appUrl(), apiKey, id)).body;
    const refused = await connectConsole(ticket.websocket_url, ticket.ticket, from);
    expect(isRefusal(refused) && refused.status).toBe(429);
    const opened = await openConsole(ticket.websocket_url, ticket.ticket);
    await opened.waitFor("# ");
    opened.ws.close();
    await opened.closed;
  });

  it("closes a console when the key that opened it is revoked, or the owner closes the server's consoles", async () => {
    const { apiKey, ids } = await accountWithServers(2);
    const [first, second] = ids as [number, number];
    const made = await api("/keys", { method: "POST", key: apiKey, body: { name: "laptop" } });
    expect(made.status).toBe(201);
    const laptop = made.body.api_key as string;
    const ticket = (await requestTicket(appUrl(), laptop, first)).body;
    const byLaptop = await openConsole(ticket.websocket_url, ticket.ticket);
    await byLaptop.waitFor("# ");
    expect((await api(`/keys/${made.body.id}`, { method: "DELETE", key: apiKey })).status).toBe(200);
    expect(await byLaptop.closed).toEqual({ code: 4010, reason: "revoked" });
    expect(byLaptop.messages.at(-1)).toMatchObject({ type: "closed", reason: "revoked" });

    // DELETE /servers/{id}/console: the account's consoles of that server close, the other server's stay.
    const a = (await requestTicket(appUrl(), apiKey, first)).body;
    const b = (await requestTicket(appUrl(), apiKey, second)).body;
    const onFirst = await openConsole(a.websocket_url, a.ticket);
    const onSecond = await openConsole(b.websocket_url, b.ticket);
    await onFirst.waitFor("# ");
    const closed = await api(`/servers/${first}/console`, { method: "DELETE", key: apiKey });
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({ server_id: first, closed: 1 });
    expect(await onFirst.closed).toEqual({ code: 4011, reason: "closed_by_owner" });
    onSecond.type("whoami\r");
    await onSecond.waitFor("whoami\r\nroot");
    const other = await createAccount();
    expect((await api(`/servers/${first}/console`, { method: "DELETE", key: other.apiKey })).status).toBe(
      404,
    );
    onSecond.ws.close();
    await onSecond.closed;
  });

  it("closes a dashboard session's console when the login token is replaced", async () => {
    const ip = randomIp();
    const bff = (path: string, cookie: string) =>
      fetch(`${appUrl()}/bff${path}`, {
        method: "POST",
        headers: { cookie, origin: appUrl(), "content-type": "application/json", "x-forwarded-for": ip },
        body: "{}",
      });
    const signUp = await bff("/sign-up", "");
    const cookie = (signUp.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const { api_key: apiKey } = (await signUp.json()) as { api_key: string };
    await fund(apiKey, 25);
    const ordered = await api("/servers", {
      method: "POST",
      key: apiKey,
      body: { plan: "pup", location: "nl", os: "debian-12" },
    });
    const id = ordered.body.id as number;
    await waitForServer(apiKey, id, (s) => s.status === "active");
    const ticket = (await (await bff(`/servers/${id}/console`, cookie)).json()) as {
      ticket: string;
      websocket_url: string;
    };
    const session = await openConsole(ticket.websocket_url, ticket.ticket, appUrl());
    await session.waitFor("# ");
    const rotated = await api("/account/login-token", { method: "POST", key: apiKey, body: {} });
    expect(rotated.status).toBe(200);
    expect(await session.closed).toEqual({ code: 4010, reason: "revoked" });
  });

  it("takes input no faster than a serial line does: the rest waits in the client's socket, not in the service", async () => {
    const { apiKey, ids } = await accountWithServers(1);
    const ticket = (await requestTicket(appUrl(), apiKey, ids[0] as number)).body;
    const session = await openConsole(ticket.websocket_url, ticket.ticket);
    await session.waitFor("# ");
    // 512 KiB of short command lines at once; the demo shell echoes every one with an answer and a prompt.
    const line = Buffer.from(`${"x".repeat(60)}\r`);
    const frame = Buffer.concat(Array.from({ length: 256 }, () => line)).subarray(0, 16 * 1024);
    const started = Date.now();
    for (let i = 0; i < 32; i++) session.ws.send(frame);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const seconds = (Date.now() - started) / 1000;
    // What came back is the echo of what was taken: the first burst, then the per-second rate.
    const taken = session.output().split("command not found").length - 1;
    const budget = TEST_LIMITS.consoleInputBurst + seconds * TEST_LIMITS.consoleInputPerSecond;
    expect(taken * line.length).toBeLessThanOrEqual(budget + 16 * 1024);
    expect(taken).toBeGreaterThan(0);
    // Still open, and still answering once the backlog is through.
    expect(session.ws.readyState).toBe(session.ws.OPEN);
    session.ws.close();
    await session.closed;
  });

  it("ends a session whose client stays behind the output", async () => {
    const { apiKey, ids } = await accountWithServers(1);
    const id = ids[0] as number;
    const ticket = (await requestTicket(appUrl(), apiKey, id)).body;
    const session = await openConsole(ticket.websocket_url, ticket.ticket);
    await session.waitFor("# ");
    // `help` answers 36 times its length: a client that reads nothing falls behind.
    const frame = Buffer.from("help\r".repeat(3_000));
    const socket = (session.ws as unknown as { _socket: { pause: () => void; destroyed: boolean } })._socket;
    socket.pause();
    const started = Date.now();
    const typing = setInterval(() => session.ws.send(frame), 200);
    try {
      // Cut off: the close frame waits behind what the client did not read, so the socket just ends.
      await until(
        async () => readFileSync(inject("appOutputFile"), "utf8"),
        (output) =>
          output.includes(`console session ${ticket.session_id} (server ${id}) closed: client_behind`),
        60_000,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(TEST_LIMITS.consoleBehindSeconds * 1000);
      await until(
        async () => socket.destroyed || session.ws.readyState === session.ws.CLOSED,
        (gone) => gone,
        15_000,
      );
    } finally {
      clearInterval(typing);
      session.ws.terminate();
    }
  }, 90_000);
});
