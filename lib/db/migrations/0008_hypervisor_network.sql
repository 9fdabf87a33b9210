-- Servers behind forwarded ports share an address (127.0.0.1 in tests) and differ by port: an address and
-- port pair is what must be unique among live servers, and bridged addresses (port 22) stay unique by it.
DROP INDEX IF EXISTS "servers_ip_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "servers_ip_port_idx" ON "servers" USING btree ("ip","ssh_port") WHERE status <> 'terminated';
