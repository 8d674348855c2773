import type { Destination } from '../../functions/core/registry/model.js';
import { checkRoutes, destinationsFor } from '../../functions/core/routing/routes.js';
import { bucketOwnership } from '../../functions/core/routing/scopes.js';
import { jsonForTerminal } from '../../functions/core/text/sanitize.js';
import { type OutputFormat, renderTable } from '../output.js';
import { loadRegistryFile } from '../registry-file.js';

/** The action of `cli/commands/routes.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function routesAction(
  run: (code: number) => void,
  options: { check?: boolean; registry: string; format: OutputFormat },
): Promise<void> {
  const { registry } = loadRegistryFile(options.registry);
  if (options.check) {
    const problems = checkRoutes(registry);
    if (options.format === 'json') process.stdout.write(`${jsonForTerminal(problems)}\n`);
    else if (problems.length === 0)
      process.stdout.write('Every workspace, bucket and finding kind reaches a destination.\n');
    else {
      process.stdout.write(
        renderTable(
          ['SCOPE', 'ENVIRONMENT', 'OWNER', 'KINDS', 'PROBLEM'],
          problems.map((problem) => [
            problem.scope,
            problem.environment ?? '-',
            problem.owner,
            problem.kinds.join(','),
            problem.problem,
          ]),
          // Scopes are ids (what --workspace and the registry take): never cut to fit the width.
          { fixed: [0] },
        ),
      );
    }
    run(problems.length > 0 ? 1 : 0);
    return;
  }
  const rows = registry.workspaces.flatMap((workspace) => [
    [
      workspace.id,
      workspace.environment,
      workspace.owner,
      '(workspace)',
      describe(destinationsFor(registry, workspace.owner, workspace.environment)),
    ],
    ...workspace.routes.map((route) => [
      workspace.id,
      workspace.environment,
      route.owner,
      route.address ?? `tag ${route.tag?.key}=${route.tag?.value}`,
      describe(destinationsFor(registry, route.owner, workspace.environment)),
    ]),
  ]);
  for (const bucket of new Set(registry.workspaces.map((workspace) => workspace.backend.bucket))) {
    const { owner, environment } = bucketOwnership(registry, bucket);
    rows.push([
      `s3://${bucket}`,
      environment ?? '-',
      owner,
      '(state bucket)',
      describe(destinationsFor(registry, owner, environment)),
    ]);
  }
  if (options.format === 'json') process.stdout.write(`${jsonForTerminal(rows)}\n`);
  else
    process.stdout.write(
      renderTable(['SCOPE', 'ENVIRONMENT', 'OWNER', 'MATCH', 'DESTINATIONS'], rows, { fixed: [0] }),
    );
  run(0);
}

function describe(destinations: readonly Destination[]): string {
  if (destinations.length === 0) return '(none)';
  return destinations.map(describeDestination).join(', ');
}

function describeDestination(destination: Destination): string {
  switch (destination.type) {
    case 'chatbot-slack':
      return `slack:${destination.channel}`;
    case 'email':
      return `email:${destination.address}`;
    case 'https':
      return `https:${new URL(destination.url).host}`;
    case 'sqs':
      return `sqs:${destination.queueArn.split(':').at(-1)}`;
  }
}
