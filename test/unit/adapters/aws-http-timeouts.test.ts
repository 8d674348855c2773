import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { AWS_HTTP_TIMEOUTS, withHttpTimeouts } from '../../../functions/adapters/aws-http-timeouts.js';
import { REPO_ROOT } from '../../helpers/integration.js';

/**
 * The SDK has no HTTP timeouts by default: `driftwatch check-backend`, `init --bucket` and `findings
 * --store s3://…` against an endpoint that accepted the connection and never answered waited
 * forever. Every AWS client driftwatch builds must be given the timeouts.
 */

function sourceFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)));
}

describe('AWS SDK clients have HTTP timeouts', () => {
  it('reach the SDK client: its request handler is configured with them', async () => {
    const client = new S3Client(withHttpTimeouts({ region: 'eu-west-1' }));
    const handler = client.config.requestHandler as unknown as { configProvider: Promise<object> };
    expect(await handler.configProvider).toMatchObject({
      connectionTimeout: AWS_HTTP_TIMEOUTS.connectionTimeout,
      socketTimeout: AWS_HTTP_TIMEOUTS.socketTimeout,
    });
    client.destroy();
  });

  it('keeps the rest of the config', () => {
    expect(withHttpTimeouts({ region: 'eu-west-1', followRegionRedirects: true })).toEqual({
      region: 'eu-west-1',
      followRegionRedirects: true,
      requestHandler: AWS_HTTP_TIMEOUTS,
    });
  });

  it('are given to every client the CLI, the adapters and the handlers build', () => {
    const files = [...sourceFiles('cli'), ...sourceFiles('functions')];
    const bare: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      // Configs built by withHttpTimeouts (`const config = withHttpTimeouts({...})`), by name.
      const built = [...text.matchAll(/(\w+) = withHttpTimeouts\(/g)].map((match) => match[1]!);
      // `new S3Client(withHttpTimeouts(...))`, `new S3Client(config)`, `new S3Client({ ...config, … })`.
      for (const match of text.matchAll(/new (\w+Client)\(\s*([^)]*)\)/g)) {
        const argument = match[2]!.trim();
        const timed =
          argument.startsWith('withHttpTimeouts(') ||
          built.some((name) => argument === name || argument.startsWith(`{ ...${name},`));
        if (!timed) bare.push(`${file}: new ${match[1]}(${argument})`);
      }
    }
    expect(bare).toEqual([]);
  });
});
