import { type Command, Option } from 'commander';
import { outFileOption } from '../options.js';

export interface InitOptions {
  bucket?: string;
  root?: string;
  region?: string;
  prefix?: string;
  out: string;
  force?: boolean;
}

/**
 * `driftwatch init --bucket B | --root DIR`: a starter driftwatch.yaml, one workspace per state
 * object, with TODO placeholders for what a bucket cannot tell (owners, sources).
 */
export function registerInit(program: Command, run: (code: number) => void): void {
  program
    .command('init')
    .description(
      'write a starter driftwatch.yaml from the state objects of a bucket (read-only) or the backend block of a Terraform root',
    )
    .addOption(
      new Option('--bucket <bucket>', 'a state bucket: one workspace per state object in it').conflicts(
        'root',
      ),
    )
    .addOption(
      new Option(
        '--root <dir>',
        'a local Terraform root: its backend "s3" block becomes one workspace',
      ).conflicts('prefix'),
    )
    .option('--region <region>', "the bucket's region (default: the bucket's own, else the SDK's)")
    .option('--prefix <prefix>', 'only states under this key prefix (and under env:/<workspace>/<prefix>)')
    .option('--out <file>', 'the file to write', outFileOption, 'driftwatch.yaml')
    .option('--force', 'overwrite the file if it exists')
    .addHelpText(
      'after',
      '\nOne of --bucket or --root is required. Placeholders contain TODO; `driftwatch routes --check` lists them.',
    )
    .action(async (options: InitOptions) => {
      // The implementation (SDK client, HCL parser) loads only when the command runs.
      const { initAction } = await import('./init-action.js');
      await initAction(run, options);
    });
}
