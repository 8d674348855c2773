import { randomBytes } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '../logger.js';
import { isAlive, onInterrupt } from './interrupt-cleanup.js';

const POLL_MS = 200;
/**
 * How long an init may hold the lock unless the caller says otherwise: longer than the runner's
 * default init timeout (15 minutes), after which the holder has killed its init and let go.
 */
export const DEFAULT_MAX_HOLD_MS = 16 * 60_000;

/** What the lock file records about its holder. */
export interface PluginCacheLockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Past this the holder's init has timed out: the lock is abandoned, whoever holds it. */
  expiresAt: string;
  /** Tells this holding apart from a later one by the same pid. */
  token: string;
}

export interface PluginCacheLockOptions {
  /** Says when a stale lock is taken over, and once when a live holder makes us wait. */
  logger?: Logger;
  /** The longest `work` may hold the lock (the init timeout plus a margin). */
  maxHoldMs?: number;
  pollMs?: number;
}

/** Tokens of the locks this process holds right now (two workspaces of one scan wait on each other). */
const heldHere = new Set<string>();

/**
 * Runs `work` while holding the plugin cache's lock. Terraform's plugin cache is not safe for
 * concurrent installs ("after installing ... it is still not detected ... this is a bug in
 * Terraform"), and several processes share it: parallel scans, test files, the demo. Creating the
 * lock file with O_EXCL is atomic, so it serialises `terraform init` across processes, while plans
 * still run in parallel (each run's providers are detached from the cache right after its init, as
 * an init may replace cache entries: provider-links.ts).
 *
 * A lock whose holder is gone is taken over at once (same host, pid dead); any other lock once it
 * is past the expiry its holder recorded. An interrupted run releases the lock synchronously.
 */
export async function withPluginCacheLock<T>(
  cacheDir: string,
  work: () => Promise<T>,
  options: PluginCacheLockOptions = {},
): Promise<T> {
  const lock = join(cacheDir, '.driftwatch-init.lock');
  const logger = options.logger ?? createLogger();
  mkdirSync(cacheDir, { recursive: true });
  let waitLogged = false;
  let owner: PluginCacheLockOwner;
  for (;;) {
    const startedAt = new Date();
    owner = {
      pid: process.pid,
      hostname: hostname(),
      startedAt: startedAt.toISOString(),
      expiresAt: new Date(startedAt.getTime() + (options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS)).toISOString(),
      token: randomBytes(8).toString('hex'),
    };
    if (tryCreate(lock, owner)) break;
    const holder = readHolder(lock);
    if (!holder) continue; // Released between our attempt and the read: try again at once.
    const stale = staleReason(holder);
    if (stale) {
      if (takeOver(lock, holder)) {
        logger.warn('took over a stale plugin cache lock', {
          lock,
          reason: stale,
          holderPid: holder.owner?.pid,
          holderHost: holder.owner?.hostname,
          heldSince: holder.owner?.startedAt ?? new Date(holder.mtimeMs).toISOString(),
        });
      }
      continue;
    }
    if (!waitLogged) {
      waitLogged = true;
      logger.info('waiting for the plugin cache lock (another terraform init is installing providers)', {
        lock,
        holderPid: holder.owner?.pid,
        holderHost: holder.owner?.hostname,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? POLL_MS));
  }
  heldHere.add(owner.token);
  const unregister = onInterrupt(() => release(lock, owner.token));
  try {
    return await work();
  } finally {
    unregister();
    release(lock, owner.token);
  }
}

function tryCreate(lock: string, owner: PluginCacheLockOwner): boolean {
  try {
    // One small write right after an exclusive create: a reader may meet the file empty for an
    // instant, and then treats it as held (see readHolder).
    writeFileSync(lock, `${JSON.stringify(owner)}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

interface Holder {
  /** Undefined for a lock without a readable record: being written, or a directory left by an older driftwatch. */
  owner?: PluginCacheLockOwner;
  mtimeMs: number;
}

function readHolder(lock: string): Holder | undefined {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(lock).mtimeMs;
  } catch {
    return undefined;
  }
  try {
    const owner = JSON.parse(readFileSync(lock, 'utf8')) as PluginCacheLockOwner;
    if (typeof owner.pid === 'number' && typeof owner.token === 'string') return { owner, mtimeMs };
  } catch {
    // Unreadable: judged by its age alone.
  }
  return { mtimeMs };
}

/** Why a lock is stale, or undefined while its holder may still be working. */
function staleReason({ owner, mtimeMs }: Holder): string | undefined {
  const now = Date.now();
  if (!owner) return now - mtimeMs > DEFAULT_MAX_HOLD_MS ? 'older than its longest hold' : undefined;
  if (owner.hostname === hostname()) {
    // An earlier process with our pid (a restarted container or Lambda sandbox reuses low pids).
    if (owner.pid === process.pid && !heldHere.has(owner.token)) return 'left by an earlier process';
    if (!isAlive(owner.pid)) return `holder ${owner.pid} is gone`;
  }
  const expiresAt = Date.parse(owner.expiresAt);
  // A record without a valid expiry is judged by the default hold from when it was written.
  const deadline = Number.isNaN(expiresAt) ? mtimeMs + DEFAULT_MAX_HOLD_MS : expiresAt;
  return now > deadline ? 'past the expiry its holder recorded' : undefined;
}

/**
 * Removes the stale lock we judged, and only that one: another waiter may have taken it over and
 * acquired a fresh lock since we read it, and deleting that would let two inits run at once. So the
 * lock is first moved aside (atomic), then checked, and put back if it turns out to be a new one.
 */
function takeOver(lock: string, judged: Holder): boolean {
  const aside = `${lock}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(lock, aside);
  } catch {
    return false; // Gone already: released, or taken over by someone else.
  }
  const moved = readHolder(aside);
  const same = judged.owner
    ? moved?.owner?.token === judged.owner.token
    : !moved?.owner && moved?.mtimeMs === judged.mtimeMs;
  if (!same) {
    try {
      linkSync(aside, lock);
    } catch {
      // Someone acquired the lock meanwhile: theirs stands.
    }
  }
  rmSync(aside, { recursive: true, force: true });
  return same;
}

/** Deletes the lock if it is still ours (a lock taken over after expiry belongs to someone else now). */
function release(lock: string, token: string): void {
  heldHere.delete(token);
  if (readHolder(lock)?.owner?.token !== token) return;
  try {
    unlinkSync(lock);
  } catch {
    // Already gone.
  }
}
