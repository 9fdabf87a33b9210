import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { api, baseUrl, createAccount, errorCode, randomIp } from "./helpers";

describe("request bodies", () => {
  it("refuses a body over 64 KiB declared by Content-Length with 413", async () => {
    const account = await createAccount();
    const result = await api("/keys", {
      method: "POST",
      key: account.apiKey,
      rawBody: JSON.stringify({ name: "x".repeat(70_000) }),
      headers: { "content-type": "application/json" },
    });
    expect(result.status).toBe(413);
    expect(errorCode(result)).toBe("payload_too_large");
  });

  it("refuses an oversized chunked body (no Content-Length) with 413 and closes the connection", async () => {
    // A raw socket, so the test can read the answer even though the server stops reading mid-upload.
    const { hostname, port } = new URL(baseUrl());
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      let received = "";
      socket.on("data", (data) => {
        received += data.toString();
      });
      socket.on("error", () => undefined); // EPIPE/ECONNRESET once the server has answered and closed
      socket.on("close", () => resolve(received));
      socket.setTimeout(10_000, () => reject(new Error("no answer")));
      socket.write(
        "POST /api/v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          `X-Forwarded-For: ${randomIp()}\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const chunk = "x".repeat(16_384);
      for (let i = 0; i < 8 && !socket.destroyed; i++)
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      if (!socket.destroyed) socket.write("0\r\n\r\n");
    });
    expect(response).toMatch(/^HTTP\/1\.1 413/);
    expect(response.toLowerCase()).toContain("connection: close");
    expect(response).toContain('"error":"payload_too_large"');
  });

  it("refuses a non-JSON content type with 415", async () => {
    const account = await createAccount();
    const result = await api("/keys", {
      method: "POST",
      key: account.apiKey,
      rawBody: "name=ci",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(result.status).toBe(415);
    expect(errorCode(result)).toBe("unsupported_media_type");
  });

  it.each(["null", "42", '"text"', "[]", "true"])(
    "refuses the JSON value %s with 400 invalid_body",
    async (raw) => {
      const account = await createAccount();
      const result = await api("/keys", {
        method: "POST",
        key: account.apiKey,
        rawBody: raw,
        headers: { "content-type": "application/json" },
      });
      expect(result.status).toBe(400);
      expect(errorCode(result)).toBe("invalid_body");
    },
  );

  it("never answers 500 to garbage", async () => {
    const account = await createAccount();
    const garbage = ["\u0000\u0001", '{"name":', "{}}", "\uFFFF", '{"__proto__":{"x":1}}', "[".repeat(5000)];
    for (const raw of garbage) {
      const result = await api("/keys", {
        method: "POST",
        key: account.apiKey,
        rawBody: raw,
        headers: { "content-type": "application/json" },
      });
      expect(result.status).toBeGreaterThanOrEqual(400);
      expect(result.status).toBeLessThan(500);
      errorCode(result);
    }
  });
});
