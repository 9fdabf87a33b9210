/** The command that logs into a server as root: the port is named only when it is not SSH's own 22. */
export function sshCommand(ip: string, port: number | null | undefined): string {
  const host = ip.includes(":") ? `[${ip}]` : ip;
  return port && port !== 22 ? `ssh -p ${port} root@${host}` : `ssh root@${host}`;
}
