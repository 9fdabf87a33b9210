#!/usr/bin/env bash
# Every suite, as CI runs it: lint, types, unit tests, the API suite over HTTP on PGlite and on
# PostgreSQL, the chaos run (several instances behind nginx, with faults), and the browser suite in
# Chromium, all against one production build.
# Ends with one line "N passed, N failed" summed over every suite; exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
reports=$(mktemp -d)
# The guest image build's output, kept apart from the suites' reports (every file there is a report).
guest_log=$(mktemp)
# Its exit status, written when it ends (the streams below are subshells, which cannot `wait` for it).
guest_status=$(mktemp -u)
logs=$(mktemp -d)
trap 'rm -rf "$reports" "$guest_log" "$guest_status" "$logs"' EXIT

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

# Debian packages the suites need: Chromium for the browser suite, PostgreSQL for the second database,
# Litecoin Core and Monero for the node suite (real nodes in regtest), QEMU, libvirt and the guest-image tools
# for the real-VM suite.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v pg_ctlcluster >/dev/null || missing+=(postgresql)
# The README quickstart (run as a test) uses curl and jq.
command -v curl >/dev/null || missing+=(curl)
command -v jq >/dev/null || missing+=(jq)
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
command -v qemu-img >/dev/null || missing+=(qemu-utils)
command -v libvirtd >/dev/null || missing+=(libvirt-daemon-system)
command -v virsh >/dev/null || missing+=(libvirt-clients)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
command -v cloud-localds >/dev/null || missing+=(cloud-image-utils)
command -v ssh-keygen >/dev/null || missing+=(openssh-client)
# The console on real machines: socat makes the pseudo-terminal `virsh console` needs.
command -v socat >/dev/null || missing+=(socat)
# The tiny test guest (busybox, dropbear, an initramfs) and the local sshd the second VM host is reached by.
[ -x /bin/busybox ] || missing+=(busybox-static)
[ -x /usr/sbin/dropbear ] || missing+=(dropbear-bin)
command -v cpio >/dev/null || missing+=(cpio)
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
# The guest isolation test watches a test bridge from a network namespace with tcpdump.
command -v tcpdump >/dev/null || missing+=(tcpdump)
# Servers' firewalls are nftables tables on their hosts (unit, VM suite); iperf3 measures their cost
# (bench:firewall); reverse DNS goes to a PowerDNS the API suite starts (sqlite3 backend, schema loaded by sqlite3).
[ -x /usr/sbin/nft ] || missing+=(nftables)
command -v iperf3 >/dev/null || missing+=(iperf3)
[ -x /usr/sbin/pdns_server ] || missing+=(pdns-server)
[ -f /usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql ] || missing+=(pdns-backend-sqlite3)
command -v sqlite3 >/dev/null || missing+=(sqlite3)
# The chaos run: nginx in front of three instances, with a throwaway certificate from openssl.
command -v nginx >/dev/null || missing+=(nginx)
command -v openssl >/dev/null || missing+=(openssl)
# Real coin nodes for the node suite (regtest, loopback), without their GUI extras.
nodes=()
[ -x /usr/lib/litecoin/litecoind ] || nodes+=(litecoind)
[ -x /usr/bin/monerod ] || nodes+=(monero)
apt_install() { as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
if [ ${#missing[@]} -gt 0 ] || [ ${#nodes[@]} -gt 0 ]; then
  echo "installing ${missing[*]} ${nodes[*]}"
  { as_root apt-get update -qq &&
    { [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"; } &&
    { [ ${#nodes[@]} -eq 0 ] || apt_install --no-install-recommends "${nodes[@]}"; }; } \
    || { echo "could not install ${missing[*]} ${nodes[*]}: install them and run again"; exit 1; }
fi

# A PostgreSQL server for the API suite: TEST_DATABASE_URL if given, else the local cluster, started here.
# The node suite gets a database of its own there (NODES_DATABASE_URL), so it can run beside the API suite.
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  cluster=$(pg_lsclusters -h 2>/dev/null | head -n 1)
  if [ -z "$cluster" ]; then
    version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
    as_root pg_createcluster "$version" main >/dev/null
    cluster=$(pg_lsclusters -h | head -n 1)
  fi
  read -r pg_version pg_name pg_port pg_status _ <<<"$cluster"
  [ "$pg_status" = online ] || as_root pg_ctlcluster "$pg_version" "$pg_name" start
  psql_admin() { as_root su postgres -c "psql -p $pg_port -qtAc \"$1\""; }
  psql_admin "SELECT 1 FROM pg_roles WHERE rolname='vps_test'" | grep -q 1 \
    || psql_admin "CREATE ROLE vps_test LOGIN PASSWORD 'vps_test'" >/dev/null
  for database in vps_test vps_test_nodes; do
    psql_admin "SELECT 1 FROM pg_database WHERE datname='$database'" | grep -q 1 \
      || as_root su postgres -c "createdb -p $pg_port -O vps_test $database"
  done
  export TEST_DATABASE_URL="postgres://vps_test:vps_test@127.0.0.1:$pg_port/vps_test"
  export NODES_DATABASE_URL="postgres://vps_test:vps_test@127.0.0.1:$pg_port/vps_test_nodes"
fi

check() { # name, command...: a pass/fail check recorded as one test
  local name=$1; shift
  echo "== $name"
  if "$@"; then echo '{"passed":1,"failed":0}' >"$reports/$name.check"; else echo '{"passed":0,"failed":1}' >"$reports/$name.check"; fi
}

# The Debian guest for the VM suite is built meanwhile (or taken from its cache): mostly package downloads and
# disk work, so it runs beside the build and the first suites instead of after them.
# The tiny test guest (Debian's kernel, busybox, dropbear) takes seconds and is cached the same way.
{
  { as_root bash scripts/guest-build.sh && as_root bash scripts/guest-build-tiny.sh; } >"$guest_log" 2>&1
  echo $? >"$guest_status"
} &
guest_build=$!
guest_built() { # waits for the guest image build; true if it succeeded
  while [ ! -s "$guest_status" ]; do sleep 2; done
  [ "$(cat "$guest_status")" = 0 ]
}

check lint npx biome check .
echo "== build"
if ! npm run build --silent; then
  wait "$guest_build"
  echo "0 passed, 1 failed"
  exit 1
fi
# After the build, so the route types Next generates are current.
check types npx tsc --noEmit

vitest_suite() { # name, project, then NAME=value settings, --vitest-options and test files
  local name=$1 project=$2; shift 2
  local settings=() options=()
  for arg in "$@"; do if [[ $arg =~ ^[A-Z_]+= ]]; then settings+=("$arg"); else options+=("$arg"); fi; done
  echo "== $name"
  env "${settings[@]}" npx vitest run --project "$project" --reporter=default --reporter=json \
    --outputFile.json="$reports/$name.vitest.json" "${options[@]}" 2>&1 | tee "$logs/$name.out"
  local status=${PIPESTATUS[0]}
  # A failure outside any test (a crashed global setup or teardown) must fail the run too, and say why.
  [ $status -eq 0 ] || node scripts/run-failure.mjs "$logs/$name.out" >"$reports/$name-run.check"
}

# Two streams side by side after the build, each logging to its own file (printed when both end): the
# suites spend much of their time waiting on timers, nodes and guests, so two share the 2 cores well.
# Stream one: unit tests, the API suite on PGlite, the browser suite, the coin nodes, the chaos run.
# Stream two: the real virtual machines and the API suite on PostgreSQL (order below).
first_stream() {
  # Unit test files mostly wait on PGlite and child processes: three at a time.
  vitest_suite unit unit --maxWorkers=3
  # The API suite's share on PGlite; it ends with a ledger check on its database, reported as one more test.
  api_pglite
  echo "== browser"
  PLAYWRIGHT_JSON_OUTPUT_FILE="$reports/browser.playwright.json" npx playwright test --reporter=list,json
  # Deposits read from real coin nodes in regtest (litecoind, monerod), on PostgreSQL, with the same check.
  [ -n "${NODES_DATABASE_URL:-}" ] && nodes_suite "$NODES_DATABASE_URL"
  # Three instances behind nginx (deploy/nginx/vps.conf) on a throwaway PostgreSQL, restarted twice, one
  # instance killed: no 500s, money and limits intact (scripts/chaos.ts; 60 s locally with `npm run chaos`).
  check chaos env CHAOS_SECONDS=20 npm run chaos --silent
}
nodes_suite() { # database URL
  vitest_suite nodes nodes API_TEST_DB=postgres TEST_DATABASE_URL="$1" LEDGER_CHECK_FILE="$reports/nodes-ledger.check"
}
vm_suites() {
  # Real virtual machines: libvirtd started here (no systemd), the Debian 12 guest built once and cached
  # (keyed on the build script's hash), then one app with the libvirt provisioner boots real guests.
  echo "== vm"
  if ! virsh -c qemu:///system version >/dev/null 2>&1; then
    pgrep -x virtlogd >/dev/null || as_root virtlogd -d
    pgrep -x libvirtd >/dev/null || as_root libvirtd -d
    for _ in $(seq 1 60); do virsh -c qemu:///system version >/dev/null 2>&1 && break; sleep 0.5; done
  fi
  if guest_built; then
    tail -n 3 "$guest_log"
    vitest_suite vm vm
    # The dashboard path to a real SSH login, in Chromium, on the tiny test guest.
    echo "== vm-browser"
    PLAYWRIGHT_JSON_OUTPUT_FILE="$reports/vm-browser.playwright.json" \
      npx playwright test -c playwright.vm.config.ts --reporter=list,json
    # The rails' own faults (libvirtd killed during builds, snapshots and a restore, a remote host cut off,
    # litecoind restarted, a deep reorg) after the VM suites, since it restarts libvirtd (scripts/chaos-rails.ts).
    check chaos-rails as_root env CHAOS_RAILS_CUT_SECONDS=60 npm run chaos:rails --silent
  else
    echo "the guest image build failed:"; tail -n 40 "$guest_log"
    echo '{"passed":0,"failed":1}' >"$reports/vm-guest-build.check"
  fi
}
# The API suite runs once, its files shared between the two databases (each run ends with the ledger check on
# its own): on PostgreSQL, what production runs, the files with tests only PostgreSQL can run (connection
# loss, limits and deliveries shared by two instances, row locks under concurrent requests) and the money
# the service holds (deposits, spend caps, holds, the operator's adjustments); every other file on PGlite, the demo's database, so a
# new file lands there. Both databases take the same migrations and queries, so each run proves them.
# `npm run test:api` runs every file on one database (API_TEST_DB).
POSTGRES_API_FILES=(console database-faults server-reads servers sessions shared-limits notifications topups
  scoped-keys holds keys pagination account operator)
POSTGRES_API_FILES=("${POSTGRES_API_FILES[@]/#/e2e/api/}")
POSTGRES_API_FILES=("${POSTGRES_API_FILES[@]/%/.test.ts}")
api_pglite() {
  vitest_suite api-pglite api API_TEST_DB=pglite LEDGER_CHECK_FILE="$reports/api-pglite-ledger.check" \
    "${POSTGRES_API_FILES[@]/#/--exclude=}"
}
api_postgres() {
  vitest_suite api-postgres api API_TEST_DB=postgres LEDGER_CHECK_FILE="$reports/api-postgres-ledger.check" \
    "${POSTGRES_API_FILES[@]}"
  # Without a database of its own the node suite follows the API suite on the same one.
  [ -z "${NODES_DATABASE_URL:-}" ] && nodes_suite "$TEST_DATABASE_URL"
}
second_stream() {
  # The VMs are the longest suite: first when the guest image is ready (cached), so the browser suite in the
  # other stream meets the API suite here rather than booting guests; after the API suite while it builds.
  if [ -s "$guest_status" ]; then vm_suites; api_postgres; else api_postgres; vm_suites; fi
}
echo "== two streams from $(date +%T): unit, api-pglite, browser, nodes, chaos | vm, vm-browser and api-postgres"
first_stream >"$logs/first.log" 2>&1 &
first=$!
second_stream >"$logs/second.log" 2>&1 &
second=$!
wait "$first"
echo "== first stream done at $(date +%T)"
cat "$logs/first.log"
wait "$second"
echo "== second stream done at $(date +%T)"
cat "$logs/second.log"

# The failed tests with why (from the reports) and the totals.
node scripts/summarize-tests.mjs "$reports" unit api-pglite api-postgres nodes browser vm vm-browser
