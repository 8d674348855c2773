import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type MotoServer, startMoto } from '../cli/demo/moto.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's moto servers, and where a file claims one (a directory per claimed index). */
    sharedMoto: { endpoints: string[]; claims: string };
  }
}

/**
 * The integration project's moto servers, as many as files run at once, started once for the whole
 * run: a file claims a free one and resets it first (useMoto), so every file still starts from an
 * empty AWS without paying for a moto_server start (seconds of Python imports, more on a loaded
 * machine) per file.
 */
export default async function startSharedMoto(project: TestProject): Promise<() => Promise<void>> {
  const slots = Number(project.config.maxWorkers) || 1;
  // Started one after another: two Python start-ups at once on two cores only slow each other down.
  const servers: MotoServer[] = [];
  for (let slot = 0; slot < slots; slot++) servers.push(await startMoto({ timeoutMs: 120_000 }));
  const claims = mkdtempSync(join(tmpdir(), 'driftwatch-moto-claims-'));
  project.provide('sharedMoto', { endpoints: servers.map((server) => server.endpoint), claims });
  return async () => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(claims, { recursive: true, force: true });
  };
}
