-- Makes the operator audit log immune to the app's own role: run by a superuser once the app has started on
-- the database (its migrations make the table), after roles.sql, and again after restoring a dump:
--
--   sudo -u postgres psql -d vps -f deploy/postgresql/audit-owner.sql
--
-- `vps_owner` then owns the table and its two trigger functions; the app's role `vps` may read the table and
-- append to it, nothing else. A compromised app can no longer change, delete or truncate an entry, disable or
-- drop the triggers that refuse those, replace their functions, date an entry otherwise than now, or drop the
-- table. A later migration that alters this table must then be run by vps_owner (the app's start would fail
-- on it, saying so), never by handing the app the table back.
\set ON_ERROR_STOP on
BEGIN;
ALTER TABLE operator_audit OWNER TO vps_owner;
ALTER FUNCTION operator_audit_append_only() OWNER TO vps_owner;
ALTER FUNCTION operator_audit_stamp() OWNER TO vps_owner;
REVOKE ALL ON operator_audit FROM PUBLIC;
REVOKE ALL ON operator_audit FROM vps;
GRANT SELECT, INSERT ON operator_audit TO vps;
COMMIT;
