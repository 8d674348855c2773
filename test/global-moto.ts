import type { TestProject } from 'vitest/node';
import { type MotoServer, startMoto } from '../cli/demo/moto.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One moto_server per worker slot of the integration project (index: VITEST_POOL_ID - 1). */
    motoEndpoints: string[];
  }
}

/**
 * The integration project's moto servers, one per worker slot, started once for the whole run:
 * files of one slot run one after another and each resets its moto first (useMoto), so every file
 * still starts from an empty AWS without paying for a moto_server start (seconds of Python imports,
 * more on a loaded machine) per file.
 */
export default async function startSharedMoto(project: TestProject): Promise<() => Promise<void>> {
  const slots = Number(project.config.maxWorkers) || 1;
  // Started one after another: two Python start-ups at once on two cores only slow each other down.
  const servers: MotoServer[] = [];
  for (let slot = 0; slot < slots; slot++) servers.push(await startMoto({ timeoutMs: 120_000 }));
  project.provide(
    'motoEndpoints',
    servers.map((server) => server.endpoint),
  );
  return async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
}
