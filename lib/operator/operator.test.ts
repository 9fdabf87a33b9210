import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLedger } from "@/e2e/support/ledger-check";
import type { Database } from "@/lib/db/client";
import {
  accounts,
  depositPayments,
  hypervisors,
  ledgerEntries,
  operatorAudit,
  operators,
  servers,
  topups,
  x402Authorizations,
} from "@/lib/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { placeServer } from "@/lib/servers/placement";
import { createAccount, insertServer, openMemoryDatabase, scratchConfigEnv } from "@/lib/testing/memory-db";
import { accountDetail, searchAccounts } from "./accounts";
import { decideAdjustment, postAdjustment } from "./adjustments";
import { type Actor, listAudit, recordAudit } from "./audit";
import { setDrained } from "./hosts";
import { importInbox, inboxDir, insertOperator, newOperator, writeToInbox } from "./operators";
import { flaggedPayments, reviewPayment } from "./payments";
import { liftAccount, liftServer, suspendAccount, suspendServer } from "./suspensions";

const restoreEnv = scratchConfigEnv({
  // Each operator may move 50 USD a day before a second admin must approve.
  OPERATOR_ADJUSTMENT_DAILY_CAP_USD: "50",
  HYPERVISORS: JSON.stringify([
    { name: "nl-1", location: "nl", uri: "qemu:///system", memory_mb: 8192, vcpus: 8, disk_gb: 200 },
    { name: "nl-2", location: "nl", uri: "qemu:///system", memory_mb: 8192, vcpus: 8, disk_gb: 200 },
  ]),
});

const HOUR = 3_600_000;

describe("the operator's services, on the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  let admin: Actor;

  beforeAll(async () => {
    ({ db, close } = await openMemoryDatabase());
    const created = newOperator("alice", "admin", Buffer.alloc(32, 7));
    expect(await insertOperator(db, created.enrollment)).toBe("added");
    const [row] = await db.select().from(operators);
    admin = { operatorId: row?.id ?? 0, name: "alice", role: "admin", client: "192.0.2.7" };
  }, 120_000);
  afterAll(async () => {
    await close();
    restoreEnv();
  });

  /** The ledger-check of the test suites, run on this database. */
  const ledgerProblems = async () =>
    (
      await checkLedger(async (text) => {
        const result = await db.execute(sql.raw(text));
        return (result as unknown as { rows: Record<string, unknown>[] }).rows;
      })
    ).problems;

  const auditCount = async () =>
    Number((await db.select({ n: sql<number>`count(*)` }).from(operatorAudit))[0]?.n ?? 0);

  /** An account funded by a completed deposit top-up, written as the crediting writes one. */
  async function fundedAccount(cents: number, coin = "LTC") {
    const accountId = await createAccount(db);
    const ref = `tp_${randomUUID().slice(0, 12)}`;
    const [topup] = await db
      .insert(topups)
      .values({
        ref,
        accountId,
        status: "completed",
        method: "deposit",
        coin,
        network: "litecoin",
        amountCents: cents,
        depositAddress: `rltc1q${randomUUID().replaceAll("-", "")}`,
        depositUnits: String(cents * 1000),
        rateUsd: "85",
        rateSource: "demo-fixed",
        confirmationsRequired: 6,
        creditedCents: cents,
        expiresAt: new Date(Date.now() + HOUR),
      })
      .returning();
    if (!topup) throw new Error("no top-up");
    await db.insert(depositPayments).values({
      topupId: topup.id,
      network: "litecoin",
      txHash: randomUUID().replaceAll("-", "").repeat(2),
      logIndex: 0,
      amountUnits: String(cents * 1000),
      confirmations: 6,
      seenAt: new Date(),
      confirmedAt: new Date(),
      quoteUnits: String(cents * 1000),
      quoteCents: cents,
      extraCents: 0,
    });
    await db.transaction((tx) =>
      postLedgerEntry(tx, {
        accountId,
        amountCents: cents,
        kind: "topup",
        reference: `topup:${ref}:${cents}`,
        apiKeyId: null,
      }),
    );
    return { accountId, topup };
  }

  const balanceOf = async (accountId: number) =>
    (await db.select({ b: accounts.balanceCents }).from(accounts).where(eq(accounts.id, accountId)))[0]?.b;

  describe("ledger adjustments", () => {
    it("post credits and debits through the ledger, keep every invariant, and are audited with their reason", async () => {
      const { accountId } = await fundedAccount(5000);
      const before = await auditCount();
      const credit = await postAdjustment(
        admin,
        { accountId, amountCents: 1250, reason: "Goodwill after outage", key: "k1" },
        db,
      );
      expect(credit).toMatchObject({
        status: 201,
        adjustment: { amount_usd: 12.5, balance_after_usd: 62.5, operator: "alice" },
      });
      expect(await ledgerProblems()).toEqual([]);
      const debit = await postAdjustment(
        admin,
        { accountId, amountCents: -250, reason: "Chargeback of a test credit" },
        db,
      );
      expect(debit).toMatchObject({ status: 201, adjustment: { balance_after_usd: 60 } });
      expect(await ledgerProblems()).toEqual([]);
      expect(await auditCount()).toBe(before + 2);
      const [entry] = (await listAudit({ target: `account:${accountId}` }, db)).entries;
      expect(entry).toMatchObject({
        operator: "alice",
        action: "adjust_ledger",
        reason: "Chargeback of a test credit",
        client: "192.0.2.7",
        detail: { amount_usd: -2.5, balance_after_usd: 60 },
      });
      const detail = await accountDetail(accountId, db);
      expect(detail.ledger[0]).toMatchObject({
        kind: "adjustment",
        amount_usd: -2.5,
        reason: "Chargeback of a test credit (alice)",
      });
    }, 20_000);

    it("refuse a debit beyond the balance, a bad amount, and a reused key, changing nothing", async () => {
      const { accountId } = await fundedAccount(1000);
      await postAdjustment(admin, { accountId, amountCents: 100, reason: "first", key: "same" }, db);
      const state = async () => ({
        balance: await balanceOf(accountId),
        entries: (await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId))).length,
        audit: await auditCount(),
      });
      const before = await state();
      await expect(
        postAdjustment(admin, { accountId, amountCents: -1101, reason: "too much" }, db),
      ).rejects.toMatchObject({ status: 409, code: "adjustment_exceeds_balance" });
      for (const amountCents of [0, Number.NaN, 10_000_01, -10_000_01]) {
        await expect(
          postAdjustment(admin, { accountId, amountCents, reason: "bad" }, db),
        ).rejects.toMatchObject({
          status: 400,
          code: "invalid_amount",
        });
      }
      await expect(
        postAdjustment(admin, { accountId, amountCents: 200, reason: "first", key: "same" }, db),
      ).rejects.toMatchObject({ status: 422, code: "idempotency_key_reused" });
      // The same request again answers the first result and posts nothing.
      const replay = await postAdjustment(
        admin,
        { accountId, amountCents: 100, reason: "first", key: "same" },
        db,
      );
      expect(replay.status).toBe(200);
      expect(await state()).toEqual(before);
      // A debit of the whole balance is fine: it reaches zero, never below.
      await postAdjustment(admin, { accountId, amountCents: -1100, reason: "all of it" }, db);
      expect(await balanceOf(accountId)).toBe(0);
      expect(await ledgerProblems()).toEqual([]);
    });
  });

  describe("the daily cap on an operator's adjustments", () => {
    it("holds what goes past it for another admin, who approves (posted, not counted against the cap) or refuses (nothing posted)", async () => {
      const { accountId } = await fundedAccount(1000);
      const created = newOperator("carol", "admin", Buffer.alloc(32, 7));
      await insertOperator(db, created.enrollment);
      const [row] = await db.select().from(operators).where(eq(operators.name, "carol"));
      const carol: Actor = { operatorId: row?.id ?? 0, name: "carol", role: "admin", client: "192.0.2.8" };
      const before = (await balanceOf(accountId)) ?? 0;
      const ask = (amountCents: number, key: string) =>
        postAdjustment(admin, { accountId, amountCents, reason: "Refund of a double charge", key }, db);

      const refused = await ask(3000, "cap-1");
      expect(refused).toMatchObject({ status: 202, approval: { state: "pending", requested_by: "alice" } });
      expect(await balanceOf(accountId)).toBe(before);
      if (refused.status !== 202) throw new Error("not pending");
      await expect(
        decideAdjustment(admin, refused.approval.id, { approve: true, note: "mine" }, db),
      ).rejects.toMatchObject({ status: 403, code: "approval_needs_another_admin" });
      expect(
        await decideAdjustment(
          carol,
          refused.approval.id,
          { approve: false, note: "Not a double charge" },
          db,
        ),
      ).toMatchObject({ state: "refused", decided_by: "carol" });
      expect(await balanceOf(accountId)).toBe(before);

      const approved = await ask(3000, "cap-2");
      if (approved.status !== 202) throw new Error("not pending");
      expect(
        await decideAdjustment(carol, approved.approval.id, { approve: true, note: "Checked" }, db),
      ).toMatchObject({ state: "approved" });
      expect(await balanceOf(accountId)).toBe(before + 3000);
      await expect(
        decideAdjustment(carol, approved.approval.id, { approve: true, note: "again" }, db),
      ).rejects.toMatchObject({ code: "approval_decided" });
      // Approved ones do not use up the asker's cap; an adjustment within it is posted at once.
      expect((await ask(1000, "cap-3")).status).toBe(201);
      expect(await balanceOf(accountId)).toBe(before + 4000);
      const actions = (await listAudit({ target: `account:${accountId}` }, db)).entries.map((e) => [
        e.action,
        e.operator,
      ]);
      expect(actions.slice(0, 5)).toEqual([
        ["adjust_ledger", "alice"],
        ["approve_adjustment", "carol"],
        ["request_adjustment", "alice"],
        ["refuse_adjustment", "carol"],
        ["request_adjustment", "alice"],
      ]);
      expect(await ledgerProblems()).toEqual([]);
    });
  });

  describe("payments needing attention", () => {
    it("lists reorged, dropped, late, overpaid and unknown x402 settlements, and a review moves them out", async () => {
      const { accountId, topup } = await fundedAccount(8500);
      const seen = new Date(topup.expiresAt?.getTime() ?? 0);
      const payment = (txHash: string, values: Partial<typeof depositPayments.$inferInsert>) => ({
        topupId: topup.id,
        network: "litecoin",
        txHash,
        logIndex: 0,
        amountUnits: "1000",
        confirmations: 0,
        seenAt: new Date(seen.getTime() - HOUR / 2),
        ...values,
      });
      const [reorged, dropped, late, overpaid, normal] = await db
        .insert(depositPayments)
        .values([
          payment("aa".repeat(32), {
            reorgedAt: new Date(),
            confirmedAt: new Date(),
            quoteCents: 0,
            extraCents: 0,
          }),
          payment("bb".repeat(32), { droppedAt: new Date() }),
          payment("cc".repeat(32), { seenAt: new Date(seen.getTime() + HOUR) }),
          payment("dd".repeat(32), {
            confirmations: 6,
            confirmedAt: new Date(),
            quoteCents: 0,
            extraCents: 0,
          }),
          payment("ee".repeat(32), { confirmations: 1 }),
        ])
        .returning({ id: depositPayments.id });
      // Counted as paid in full at the quote plus an excess: credited through the ledger as crediting does.
      await db
        .update(depositPayments)
        .set({ extraCents: 85 })
        .where(eq(depositPayments.id, overpaid?.id ?? 0));
      await db.update(topups).set({ creditedCents: 8585 }).where(eq(topups.id, topup.id));
      await db.transaction((tx) =>
        postLedgerEntry(tx, {
          accountId,
          amountCents: 85,
          kind: "topup",
          reference: `topup:${topup.ref}:8585`,
          apiKeyId: null,
        }),
      );
      const [x402] = await db
        .insert(x402Authorizations)
        .values({
          network: "base",
          asset: "0xusdc",
          payer: "0xpayer",
          nonce: randomUUID(),
          accountId,
          state: "in_flight",
          leaseUntil: new Date(Date.now() - 1000),
        })
        .returning({ id: x402Authorizations.id });

      const open = await flaggedPayments("attention", { accountId }, db);
      const flagsById = Object.fromEntries(open.map((p) => [p.id, p.flags]));
      expect(flagsById).toEqual({
        [`deposit:${reorged?.id}`]: ["reorged"],
        [`deposit:${dropped?.id}`]: ["dropped"],
        [`deposit:${late?.id}`]: ["late"],
        [`deposit:${overpaid?.id}`]: ["overpaid"],
        [`x402:${x402?.id}`]: ["settlement_unknown"],
      });
      expect(open.find((p) => p.id === `deposit:${normal?.id}`)).toBeUndefined();
      expect(open.find((p) => p.id === `deposit:${reorged?.id}`)).toMatchObject({
        coin: "LTC",
        tx_hash: "aa".repeat(32),
        account_id: accountId,
        topup: { ref: topup.ref },
        review: null,
      });

      const reviewed = await reviewPayment(
        admin,
        `deposit:${dropped?.id}`,
        "Double spend by the payer; nothing owed",
        db,
      );
      expect(reviewed.review).toMatchObject({ by: "alice", note: "Double spend by the payer; nothing owed" });
      await expect(reviewPayment(admin, `deposit:${dropped?.id}`, "again", db)).rejects.toMatchObject({
        code: "already_reviewed",
      });
      await expect(reviewPayment(admin, `deposit:${normal?.id}`, "nothing wrong", db)).rejects.toMatchObject({
        status: 404,
      });
      // An adjustment for the reorged payment takes its credit back and settles it.
      await postAdjustment(
        admin,
        {
          accountId,
          amountCents: -85,
          reason: "Reorged out, never re-mined",
          payment: `deposit:${reorged?.id}`,
        },
        db,
      );
      const still = (await flaggedPayments("attention", { accountId }, db)).map((p) => p.id).sort();
      expect(still).toEqual([`deposit:${late?.id}`, `deposit:${overpaid?.id}`, `x402:${x402?.id}`].sort());
      expect((await flaggedPayments("reviewed", { accountId }, db)).map((p) => p.id).sort()).toEqual(
        [`deposit:${dropped?.id}`, `deposit:${reorged?.id}`].sort(),
      );
      expect(await ledgerProblems()).toEqual([]);
    });
  });

  describe("finding accounts", () => {
    it("by account or server id, a server's address (current or former), a deposit address or a transaction id", async () => {
      const { accountId, topup } = await fundedAccount(2000);
      const other = await createAccount(db);
      const server = await insertServer(db, accountId, { ip: "10.0.9.9", status: "active" });
      await insertServer(db, other, { lastIp: "10.0.9.9", status: "terminated" });
      const [paid] = await db.select().from(depositPayments).where(eq(depositPayments.topupId, topup.id));
      expect(await searchAccounts(String(accountId), db)).toContainEqual({
        account_id: accountId,
        matched: "account id",
      });
      expect(await searchAccounts(String(server.id), db)).toContainEqual({
        account_id: accountId,
        matched: `server ${server.id}`,
      });
      expect(await searchAccounts(" 10.0.9.9 ", db)).toEqual([
        expect.objectContaining({ account_id: other, matched: expect.stringMatching(/^former address/) }),
        { account_id: accountId, matched: `address of server ${server.id}` },
      ]);
      expect(await searchAccounts(topup.depositAddress.toUpperCase(), db)).toEqual([
        { account_id: accountId, matched: `deposit address of top-up ${topup.ref}` },
      ]);
      expect(await searchAccounts(paid?.txHash ?? "", db)).toEqual([
        { account_id: accountId, matched: `transaction of top-up ${topup.ref}` },
      ]);
      expect(await searchAccounts("nothing-like-this", db)).toEqual([]);
    });
  });

  describe("suspensions", () => {
    it("hold a server and then the whole account, each recorded; lifting the account keeps the server's own", async () => {
      const accountId = await createAccount(db);
      const a = await insertServer(db, accountId, { status: "active", powerState: "running" });
      const b = await insertServer(db, accountId, { status: "active", powerState: "stopped" });
      const held = await suspendServer(admin, a.id, { reason: "Spam relay", pausesPeriod: true }, db);
      expect(held).toMatchObject({
        status: "suspended",
        statusReason: "Suspended by the operator: Spam relay",
      });
      await expect(
        suspendServer(admin, a.id, { reason: "again", pausesPeriod: true }, db),
      ).rejects.toMatchObject({
        code: "already_suspended",
      });
      await suspendAccount(admin, accountId, { reason: "Botnet C2", pausesPeriod: true }, db);
      const row = async (id: number) => (await db.select().from(servers).where(eq(servers.id, id)))[0];
      expect(await row(b.id)).toMatchObject({
        status: "suspended",
        statusReason: "Suspended by the operator: Botnet C2",
      });
      expect((await accountDetail(accountId, db)).suspension).toMatchObject({
        reason: "Botnet C2",
        by: "alice",
      });

      await liftAccount(admin, accountId, "Owner cleaned up", db);
      // b was held by the account alone: back as it was (active, stopped); a keeps its own suspension.
      expect(await row(b.id)).toMatchObject({ status: "active", powerState: "stopped", heldSince: null });
      expect(await row(a.id)).toMatchObject({
        status: "suspended",
        statusReason: "Suspended by the operator: Spam relay",
      });
      const lifted = await liftServer(admin, a.id, "Relay closed", db);
      expect(lifted).toMatchObject({ status: "active", powerState: "running", statusReason: null });
      await expect(liftServer(admin, a.id, "again", db)).rejects.toMatchObject({ code: "not_suspended" });
      const actions = (await listAudit({}, db)).entries
        .filter((entry) => [`server:${a.id}`, `account:${accountId}`].includes(entry.target ?? ""))
        .map((entry) => entry.action);
      expect(actions).toEqual(["lift_server", "lift_account", "suspend_account", "suspend_server"]);
    });
  });

  describe("operators added on the machine with the embedded database", () => {
    it("wait in DATA_DIR/operators until the app takes them in; a taken name or a stray file is set aside", async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), "operator-inbox-"));
      const bob = newOperator("bob", "support", Buffer.alloc(32, 7));
      const file = writeToInbox(dataDir, bob.enrollment);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, "utf8")).not.toContain(bob.secret);
      expect(readFileSync(file, "utf8")).not.toContain(bob.totpSecret);
      expect(() =>
        writeToInbox(dataDir, newOperator("bob", "admin", Buffer.alloc(32, 7)).enrollment),
      ).toThrow(/already waiting/);
      writeToInbox(dataDir, newOperator("alice", "admin", Buffer.alloc(32, 7)).enrollment);
      writeFileSync(path.join(inboxDir(dataDir), "junk.json"), "{}");
      expect(await importInbox(db, dataDir)).toEqual(["bob"]);
      expect(readdirSync(inboxDir(dataDir)).sort()).toEqual(["alice.json.rejected", "junk.json.rejected"]);
      const [row] = await db.select().from(operators).where(eq(operators.name, "bob"));
      expect(row).toMatchObject({ role: "support", secretHash: bob.enrollment.secretHash });
      expect(await importInbox(db, dataDir)).toEqual([]);
    });
  });

  describe("the audit log", () => {
    it("is append-only: the database refuses to change or remove an entry", async () => {
      await recordAudit(db, admin, { action: "sign_in" });
      // drizzle wraps the database's refusal: its own words are the cause's.
      const refusal = async (attempt: Promise<unknown>) => {
        const error = await attempt.then(
          () => undefined,
          (thrown: unknown) => thrown as Error & { cause?: Error },
        );
        return error?.cause?.message ?? error?.message;
      };
      const before = await auditCount();
      expect(await refusal(db.update(operatorAudit).set({ reason: "rewritten" }))).toMatch(/append-only/);
      expect(await refusal(db.delete(operatorAudit))).toMatch(/append-only/);
      expect(await refusal(db.execute(sql`TRUNCATE operator_audit`))).toMatch(/append-only/);
      expect(await auditCount()).toBe(before);
    });
  });

  describe("draining a host", () => {
    it("sends new orders elsewhere, refuses them when every host is drained, and keeps what runs there", async () => {
      const place = () =>
        db.transaction((tx) => placeServer(tx, "nl", { memoryMb: 1024, vcpus: 1, diskGb: 20 }));
      expect(await place()).toBe("nl-1");
      await setDrained(admin, "nl-1", true, "Disk replacement", db);
      expect(await place()).toBe("nl-2");
      await setDrained(admin, "nl-2", true, "Kernel update", db);
      await expect(place()).rejects.toMatchObject({ code: "out_of_capacity" });
      const [row] = await db.select().from(hypervisors).where(eq(hypervisors.name, "nl-1"));
      expect(row).toMatchObject({ drainReason: "Disk replacement" });
      await setDrained(admin, "nl-1", false, "Disk replaced", db);
      expect(await place()).toBe("nl-1");
      await expect(setDrained(admin, "xx-9", true, "no such host", db)).rejects.toMatchObject({
        status: 404,
      });
      const actions = (await listAudit({ target: "host:nl-1" }, db)).entries.map((e) => [e.action, e.reason]);
      expect(actions).toEqual([
        ["undrain_host", "Disk replaced"],
        ["drain_host", "Disk replacement"],
      ]);
    });
  });
});
