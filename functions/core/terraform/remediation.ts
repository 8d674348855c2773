import type { Remediation } from '../findings/model.js';

/**
 * Principle 5: drift is a decision between two reviewed paths, revert or adopt. driftwatch proposes;
 * a human runs the change through the team's pipeline. Nothing here ever suggests an unattended apply.
 *
 * The finding names its resource; the text here names the workspace and the paths. That lets all
 * findings with the same paths share one (frozen) remediation object: a workspace with thousands of
 * `tags.Owner` drifts does not build thousands of identical paragraphs.
 */

export interface RemediationContext {
  workspace: string;
  /** Where the configuration lives (e.g. `infra/payments`, a repository URL). */
  source?: string | undefined;
  /** Where the state lives (e.g. `s3://tfstate-prod/payments/terraform.tfstate`). */
  backend?: string | undefined;
}

export type PendingAction = 'create' | 'update' | 'delete' | 'replace';

export interface Remediations {
  /**
   * Drift of attributes (update, replace; a moved resource too): revert or adopt. `exposed`: the drift
   * leaves something open, public or unguarded (severity's exposure rules), and adopting keeps it.
   */
  drift(paths: readonly string[], exposed?: boolean): Remediation;
  /** Deleted outside Terraform: recreate, or remove from the configuration. */
  deletion(address: string): Remediation;
  moved(address: string, previousAddress: string): Remediation;
  /** Drift confined to attributes that `lifecycle.ignore_changes` (in `file`) leaves alone. */
  ignoredChanges(file: string): Remediation;
  /** An `import` block that the next apply carries out. */
  imported(address: string, paths: readonly string[]): Remediation;
  pending(action: PendingAction, paths: readonly string[]): Remediation;
  output(name: string): Remediation;
  check(address: string): Remediation;
}

const NEVER_AUTOMATIC = 'driftwatch never applies anything: whichever path you choose goes through review.';

export function createRemediations(context: RemediationContext): Remediations {
  const workspace = describeWorkspace(context);
  const inSource = context.source ? ` in ${context.source}` : '';
  const cache = new Map<string, Remediation>();
  const memo = (key: string, build: () => Remediation) => {
    let remediation = cache.get(key);
    if (remediation === undefined) {
      remediation = freeze(build());
      cache.set(key, remediation);
    }
    return remediation;
  };

  return {
    drift(paths, exposed = false) {
      return memo(`drift\n${exposed}\n${paths.join('\n')}`, () => {
        const what = paths.length > 0 ? listPaths(paths) : 'the changed attributes';
        const adopt = exposed
          ? 'Adopt only if the exposure is intended and approved (adopting keeps it open)'
          : 'Adopt';
        return {
          summary: `Decide whether the resource goes back to its declared configuration (revert) or the configuration takes the live values (adopt): ${what}.`,
          steps: [
            `Revert: run a normal \`terraform plan\` for ${workspace} through the team's pipeline, review that it restores the declared configuration (${what}), then apply that reviewed plan through the pipeline.`,
            `${adopt}: change the configuration${inSource} to declare the live values of ${what}; review and merge it. The next refresh-only plan is then clean.`,
            NEVER_AUTOMATIC,
          ],
        };
      });
    },
    deletion(address) {
      return {
        summary: `${address} no longer exists: recreate it, or remove it from the configuration if the deletion was intended.`,
        steps: [
          `Recreate: run a normal \`terraform plan\` for ${workspace} through the team's pipeline, review that it recreates ${address} (and nothing else unexpected), then apply that reviewed plan through the pipeline.`,
          `Remove: if the deletion was intended, remove ${address} from the configuration${inSource} with a \`removed\` block (or, after review, \`terraform state rm ${address}\`); review and merge it.`,
          NEVER_AUTOMATIC,
        ],
      };
    },
    moved(address, previousAddress) {
      return {
        summary: `${previousAddress} is now ${address} (a \`moved\` block); no value changed. Nothing to decide.`,
        steps: [
          `The move is recorded in state at the next reviewed apply of ${workspace} through the team's pipeline.`,
          'Keep the `moved` block until every workspace and module consumer has applied it.',
        ],
      };
    },
    ignoredChanges(file) {
      return memo(`ignored\n${file}`, () => ({
        summary: `Nothing to decide: lifecycle.ignore_changes in ${file} tells Terraform to leave these attributes as they are.`,
        steps: [
          `If these attributes should be managed after all, remove them from ignore_changes in ${file}${inSource}; review and merge it, then review the next plan of ${workspace}.`,
          NEVER_AUTOMATIC,
        ],
      }));
    },
    imported(address, paths) {
      return memo(`imported\n${address}\n${paths.join('\n')}`, () => {
        const what = paths.length > 0 ? `, and that it sets only ${listPaths(paths)}` : '';
        return {
          summary: `An import block adopts the existing ${address} at the next apply: nothing is created or destroyed.`,
          steps: [
            `Review the import in a normal \`terraform plan\` for ${workspace} (that it adopts the intended object${what}), then apply it through the team's pipeline.`,
            'Remove the import block once it has been applied everywhere.',
            NEVER_AUTOMATIC,
          ],
        };
      });
    },
    pending(action, paths) {
      return memo(`pending\n${action}\n${paths.join('\n')}`, () => {
        const what = paths.length > 0 ? ` (${listPaths(paths)})` : '';
        return {
          summary: `The configuration has a change that was never applied: ${action}${what}.`,
          steps: [
            `If the change is intended: review it in a normal \`terraform plan\` for ${workspace} and apply it through the team's pipeline.`,
            `If it is not: revert the configuration change${inSource}; review and merge it.`,
            NEVER_AUTOMATIC,
          ],
        };
      });
    },
    check(address) {
      return {
        summary: `${address} no longer holds for the live infrastructure of ${context.workspace}: find out what changed, then fix the infrastructure or the condition through review.`,
        steps: [
          'Read the failing message (the finding names it) and the other findings of this workspace: drift of the resources the condition reads is reported on its own.',
          `Fix the infrastructure through the team's pipeline (a reviewed plan and apply of ${workspace}), or change the condition in a reviewed change if it no longer says what the team expects.`,
          NEVER_AUTOMATIC,
        ],
      };
    },
    output(name) {
      return {
        summary: `Output ${name} of ${context.workspace} differs from the value recorded in state.`,
        steps: [
          'Outputs follow resources and configuration: look at the other findings of this workspace first.',
          `A reviewed apply of ${workspace} through the team's pipeline records the current value.`,
        ],
      };
    },
  };
}

export function scanFailedRemediation(context: RemediationContext): Remediation {
  return {
    summary: `The scan of ${context.workspace} did not produce a usable plan, so its drift is unknown.`,
    steps: [
      'Read the reason and the scan logs (provider errors, credentials, network, unsupported Terraform version).',
      `Fix the cause, then rescan ${describeWorkspace(context)}; nothing was concluded about its resources.`,
    ],
  };
}

/** Shared between findings, so nobody may change it in place. */
function freeze(remediation: Remediation): Remediation {
  Object.freeze(remediation.steps);
  return Object.freeze(remediation);
}

function describeWorkspace(context: RemediationContext): string {
  const where = [
    context.source ? `configuration in ${context.source}` : undefined,
    context.backend ? `state in ${context.backend}` : undefined,
  ].filter((part) => part !== undefined);
  return where.length > 0
    ? `workspace ${context.workspace} (${where.join(', ')})`
    : `workspace ${context.workspace}`;
}

/** `a, b, c and 4 more`: enough to act on, short enough for a chat message. */
export function listPaths(paths: readonly string[], limit = 5): string {
  const shown = paths.slice(0, limit).map((path) => (path === '' ? '(whole value)' : path));
  const more = paths.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
