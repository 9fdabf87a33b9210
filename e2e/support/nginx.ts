/**
 * nginx with the deploy kit's site (deploy/nginx/vps.conf) in front of app instances on loopback: the same
 * site an operator installs, with our ports and a throwaway certificate for `localhost` templated in. The chaos
 * runs send their customers through it.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

export type Nginx = {
  /** `https://localhost:<port>`: the public origin the app must be told (PUBLIC_BASE_URL). */
  origin: string;
  httpsPort: number;
  /** The throwaway certificate, to trust in clients. */
  ca: Buffer;
  accessLog: string;
  errorLog: string;
  stop: () => Promise<void>;
};

/** The deploy site with our ports and certificate; each substitution must match, or the site changed shape. */
function templateSite(
  site: string,
  ports: { app: readonly number[]; http: number; https: number },
  certDir: string,
): string {
  const replace = (text: string, pattern: RegExp, by: string, what: string) => {
    if (!pattern.test(text))
      throw new Error(`deploy/nginx/vps.conf: ${what} not found; update e2e/support/nginx.ts`);
    return text.replace(pattern, by);
  };
  let out = site;
  out = replace(
    out,
    /(upstream vps_app \{[^}]*?)(\s*server 127\.0\.0\.1:\d+[^\n]*)+/,
    `$1${ports.app.map((p) => `\n    server 127.0.0.1:${p} max_fails=3 fail_timeout=5s;`).join("")}`,
    "the upstream's server lines",
  );
  out = replace(out, /listen 80;/, `listen 127.0.0.1:${ports.http};`, "listen 80");
  out = replace(out, /listen 443 ssl([^;]*);/, `listen 127.0.0.1:${ports.https} ssl$1;`, "listen 443 ssl");
  out = replace(out, /\n\s*listen \[::\]:\d+[^;]*;/g, "", "the IPv6 listen lines");
  out = replace(out, /server_name vps\.example\.com;/g, "server_name localhost;", "server_name");
  out = replace(out, /ssl_certificate \S+;/, `ssl_certificate ${certDir}/cert.pem;`, "ssl_certificate");
  out = replace(
    out,
    /ssl_certificate_key \S+;/,
    `ssl_certificate_key ${certDir}/key.pem;`,
    "ssl_certificate_key",
  );
  return out;
}

/** Starts nginx in front of the app instances on `ports.app`; resolves once its HTTPS port accepts. */
export async function startNginx(ports: {
  app: readonly number[];
  http: number;
  https: number;
}): Promise<Nginx> {
  const dir = mkdtempSync(path.join(tmpdir(), "vps-nginx-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost",
      "-keyout",
      `${dir}/key.pem`,
      "-out",
      `${dir}/cert.pem`,
    ],
    { stdio: "ignore" },
  );
  const site = templateSite(readFileSync(path.join(ROOT, "deploy/nginx/vps.conf"), "utf8"), ports, dir);
  writeFileSync(`${dir}/site.conf`, site);
  const temp = `${dir}/temp`;
  mkdirSync(temp, { mode: 0o777 });
  execFileSync("chmod", ["0777", temp]);
  writeFileSync(
    `${dir}/nginx.conf`,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  # nginx's usual access log (the combined format a distribution's nginx.conf sets): the chaos run checks
  # that no console ticket reaches it.
  access_log ${dir}/access.log combined;
  default_type application/octet-stream;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
  include ${dir}/site.conf;
}
`,
  );
  execFileSync("nginx", ["-t", "-q", "-p", dir, "-c", `${dir}/nginx.conf`], { stdio: "inherit" });
  const child = spawn("nginx", ["-p", dir, "-c", `${dir}/nginx.conf`], { stdio: "inherit" });
  const stop = async () => {
    child.kill("SIGQUIT");
    await new Promise((resolve) => setTimeout(resolve, 300));
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    try {
      execFileSync("bash", ["-c", `exec 3<>/dev/tcp/127.0.0.1/${ports.https}`], { stdio: "ignore" });
      break;
    } catch {
      if (i >= 50) {
        await stop();
        throw new Error(`nginx did not accept on ${ports.https} within 5 s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    origin: `https://localhost:${ports.https}`,
    httpsPort: ports.https,
    ca: readFileSync(`${dir}/cert.pem`),
    accessLog: `${dir}/access.log`,
    errorLog: `${dir}/error.log`,
    stop,
  };
}

export type HttpsAnswer = { status: number; body: Record<string, unknown>; text: string };

/**
 * One JSON request through nginx, trusting its certificate (Node's fetch cannot be given a CA without the
 * undici package). `agent` keeps connections alive between calls.
 */
export function httpsJson(
  nginx: Nginx,
  agent: https.Agent,
  method: string,
  route: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = https.request(
      {
        host: "127.0.0.1",
        port: nginx.httpsPort,
        servername: "localhost",
        path: route,
        method,
        headers: {
          host: `localhost:${nginx.httpsPort}`,
          ...headers,
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
        },
        agent,
        timeout: 60_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: Record<string, unknown> = {};
          try {
            parsed = text ? JSON.parse(text) : {};
          } catch {}
          resolve({ status: response.statusCode ?? 0, body: parsed, text });
        });
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error(`${method} ${route}: no answer in 60 s`)));
    request.on("error", reject);
    request.end(payload);
  });
}

/** A keep-alive agent that trusts the nginx's throwaway certificate. */
export const nginxAgent = (nginx: Nginx) =>
  new https.Agent({ keepAlive: true, ca: nginx.ca, servername: "localhost", maxSockets: 16 });
