import type { Command } from 'commander';

/** The demo's last lines: from the demo to a scan of one's own bucket (docs/getting-started.md). */
export const DEMO_NEXT_STEP =
  'Next, your own estate (docs/getting-started.md):\n  npx driftwatch init --bucket <your-state-bucket>';

/** `driftwatch demo` (npm start). Exits 0 when the demo ran as planned: its drift is staged and expected. */
export function registerDemo(program: Command, run: (code: number) => void): void {
  program
    .command('demo')
    .description('local end-to-end run on examples/estate: moto_server, real Terraform, staged drift, a scan')
    .option('--store <dir>', 'where the demo stores its findings (wiped first)', '.driftwatch/demo')
    .action(async (options: { store: string }) => {
      // Loaded on use: the demo pulls in SDK clients (EC2, SQS, SSM) no other command needs.
      const { runDemo } = await import('../demo/run-demo.js');
      const result = await runDemo({
        storeDir: options.store,
        print: (line) => process.stdout.write(`${line}\n`),
      });
      // Last, after moto has stopped: what a newcomer runs next, on their own estate.
      if (result.asPlanned) process.stdout.write(`\n${DEMO_NEXT_STEP}\n`);
      run(result.asPlanned ? 0 : 1);
    });
}
