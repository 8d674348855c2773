import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** Process and temp-directory helpers for the tests that start real processes. */

/** Running (a killed process whose parent is gone may linger as a zombie until init reaps it). */
export function alive(pid: number): boolean {
  try {
    const state = /State:\s+(\w)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The pid a child writes to `file` once it holds what the test needs. Start-up on a loaded machine
 * takes seconds: polls until the file has content, up to a generous bound.
 */
export async function waitForPid(file: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (!(existsSync(file) && readFileSync(file, 'utf8').trim()) && Date.now() < deadline) {
    await sleep(20);
  }
  return Number(readFileSync(file, 'utf8'));
}

/** Call at a test file's top level: returns a maker of temp directories removed after each test. */
export function useTempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}

export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <args>` to its end, collecting its output; rejects only when it cannot start. */
export function runNode(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<NodeRun> {
  return runCollected(process.execPath, args, options);
}

/** Runs a program to its end, collecting its output; rejects only when it cannot start. */
export function runCollected(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
