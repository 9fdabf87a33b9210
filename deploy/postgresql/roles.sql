-- The database and its two roles, made once by a superuser before the app's first start:
--
--   sudo -u postgres psql -v app_password="$(openssl rand -hex 24)" -f deploy/postgresql/roles.sql
--
-- then DATABASE_URL=postgres://vps:<that password>@127.0.0.1:5432/vps in /etc/vps/production.env.
--
-- `vps` is the app's role: it logs in, runs the migrations and owns the tables they make. `vps_owner` never logs
-- in: it owns the database (so also its `public` schema, whose owner could drop any table in it) and, once
-- audit-owner.sql has run, the operator audit log, which the app may then only read and append to.
\set ON_ERROR_STOP on
CREATE ROLE vps_owner NOLOGIN;
CREATE ROLE vps LOGIN PASSWORD :'app_password';
CREATE DATABASE vps OWNER vps_owner;
\connect vps
REVOKE ALL ON DATABASE vps FROM PUBLIC;
GRANT CONNECT, CREATE, TEMPORARY ON DATABASE vps TO vps;
GRANT USAGE, CREATE ON SCHEMA public TO vps;
