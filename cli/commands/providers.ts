import { type Command, InvalidArgumentError } from 'commander';
import { platformProblem } from '../../functions/core/terraform/provider-mirror-index.js';

export interface MirrorCommandOptions {
  registry: string;
  to: string;
  platform: string[];
  workspace?: string[];
}

/** The deployed scanner's platform (ScanTerraform runs on x86_64; docs/providers.md says why). */
export const DEFAULT_MIRROR_PLATFORMS = ['linux_amd64'];

/** `driftwatch providers mirror`: fills a provider network mirror from the registered workspaces' lock files. */
export function registerProviders(program: Command, run: (code: number) => void): void {
  const providers = program
    .command('providers')
    .description('provider mirrors for accounts without internet egress');
  providers
    .command('mirror')
    .description(
      "fill a provider mirror (a directory or s3://bucket/prefix) with what each workspace's lock file selects, via terraform providers mirror",
    )
    .requiredOption(
      '--to <dir|s3://bucket/prefix>',
      'the mirror: a directory, or the S3 prefix the stack serves over HTTPS',
    )
    .option('--registry <file>', 'the registry', 'driftwatch.yaml')
    .option(
      '--platform <os_arch...>',
      `platforms to mirror (default ${DEFAULT_MIRROR_PLATFORMS.join(' ')}: the deployed scanner's)`,
      collectPlatform,
    )
    .option('--workspace <id...>', 'only these workspaces')
    .action(async (options: MirrorCommandOptions) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { providersMirrorAction } = await import('./providers-action.js');
      await providersMirrorAction(run, options);
    });
}

function collectPlatform(value: string, previous: string[] | undefined): string[] {
  const problem = platformProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return [...(previous ?? []), value];
}
