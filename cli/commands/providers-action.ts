import { S3Client } from '@aws-sdk/client-s3';
import { withHttpTimeouts } from '../../functions/adapters/aws-http-timeouts.js';
import { CliError } from '../context.js';
import { describeTarget, mirrorProviders } from '../providers-mirror.js';
import { loadRegistryFile } from '../registry-file.js';
import { DEFAULT_MIRROR_PLATFORMS, type MirrorCommandOptions } from './providers.js';

/** The action of `cli/commands/providers.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function providersMirrorAction(
  run: (code: number) => void,
  options: MirrorCommandOptions,
): Promise<void> {
  const loaded = loadRegistryFile(options.registry);
  const unknown = (options.workspace ?? []).filter(
    (id) => !loaded.registry.workspaces.some((workspace) => workspace.id === id),
  );
  if (unknown.length > 0) throw new CliError(`no workspace ${unknown.join(', ')} in ${options.registry}`);
  const result = await mirrorProviders({
    loaded,
    to: options.to,
    platforms: options.platform ?? DEFAULT_MIRROR_PLATFORMS,
    workspaces: options.workspace,
    s3: () => new S3Client(withHttpTimeouts()),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stderr.write(
    `${describeTarget(options.to)}: ${result.written.length} files written for ${result.mirrored.length} workspaces` +
      (result.failed.length > 0
        ? `; ${result.failed.length} failed (${result.failed.map((f) => f.workspace).join(', ')})`
        : '') +
      '\n',
  );
  run(result.failed.length > 0 ? 1 : 0);
}
