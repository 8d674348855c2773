import type { Finding, TerraformResourceRef } from '../findings/model.js';
import { parseResourceAddress } from './address.js';
import type { RevertPlan, TerraformContext } from './model.js';
import { proposedChanges } from './model.js';
import { shellQuote, targetArgument } from './shell-quote.js';

/** The plan file the printed commands save and show, so what is reviewed is what gets applied. */
export const REVERT_PLAN_FILE = 'driftwatch-revert.tfplan';

/**
 * Revert for a Terraform finding: the targeted plan to run through the team's pipeline in the
 * workspace's root module, and the changes it will propose (what exists → what is declared). Revert
 * of drift puts the configuration back; revert of a pending change is the apply of the existing
 * configuration. The commands plan and show; applying the reviewed plan file is the pipeline's job.
 */
export function terraformRevertPlan(finding: Finding, context: TerraformContext = {}): RevertPlan {
  const resource = finding.resource as TerraformResourceRef;
  const binary = context.engine === 'opentofu' ? 'tofu' : 'terraform';
  const isOutput = resource.type === 'output' || resource.address.startsWith('output.');
  const variables = [
    ...(context.varFiles ?? []).map((file) => `-var-file=${shellQuote(file)}`),
    ...Object.entries(context.vars ?? {}).map(([name, value]) => `-var ${shellQuote(`${name}=${value}`)}`),
  ];
  // Outputs cannot be targeted: their revert is the workspace's whole plan.
  const target = isOutput ? [] : [targetArgument(resource.address)];
  const plan = [binary, 'plan', '-input=false', ...target, ...variables, `-out=${REVERT_PLAN_FILE}`].join(
    ' ',
  );
  const commands: string[] = [];
  if (context.backend) {
    const { bucket, key, region } = context.backend;
    commands.push(
      [
        binary,
        'init',
        '-input=false',
        ...[`bucket=${bucket}`, `key=${key}`, `region=${region}`].map(
          (value) => `-backend-config=${shellQuote(value)}`,
        ),
      ].join(' '),
    );
    if (context.backend.workspace)
      commands.push(`${binary} workspace select ${shellQuote(context.backend.workspace)}`);
  }
  commands.push(plan, `${binary} show ${REVERT_PLAN_FILE}`);

  const changes = proposedChanges(finding);

  const notes: string[] = [];
  if (context.rootDir === undefined)
    notes.push(
      'The root module directory is not known: run the commands in the workspace’s Terraform root (pass --registry or --config to name it).',
    );
  if (!isOutput)
    notes.push(
      `-target limits the plan to ${resource.address} and what it depends on; Terraform warns that the plan is partial. That is expected: review it, then apply that saved plan file (${REVERT_PLAN_FILE}) through the pipeline, not a new plan.`,
    );
  if (context.sensitiveVars && context.sensitiveVars.length > 0)
    notes.push(
      `The plan needs the secret variables ${context.sensitiveVars.map((name) => `TF_VAR_${name}`).join(', ')} in its environment, as the scan gets them (the registry's sensitiveVars): their values are not printed here.`,
    );
  if (changes.some((change) => change.sensitive))
    notes.push('Sensitive values are shown as hashes: the plan shows them as (sensitive value).');
  if (parseResourceAddress(resource.address) === undefined && !isOutput)
    notes.push(`${resource.address} is not an address driftwatch can take apart: check the -target value.`);
  notes.push(
    'driftwatch never runs terraform apply: the reviewed plan goes through the team’s pipeline like any change.',
  );
  return {
    mode: 'revert',
    system: 'terraform',
    ...(context.rootDir === undefined ? {} : { cwd: context.rootDir }),
    commands,
    command: plan,
    changes,
    effect: revertEffect(finding, resource.address, isOutput),
    notes,
  };
}

function revertEffect(finding: Finding, address: string, isOutput: boolean): string {
  const action = finding.drift?.action;
  if (isOutput)
    return `The plan records the current value of ${address}: outputs follow the resources and the configuration, so revert the workspace’s other findings first.`;
  if (finding.kind === 'pending-change') {
    const base =
      'Revert of a pending change means applying the existing configuration through the pipeline (to keep what is applied instead, adopt: change the configuration).';
    switch (action) {
      case 'create':
        return `${base} The plan creates ${address} (+ create): it was declared but never applied.`;
      case 'delete':
        return `${base} The plan destroys ${address} (- destroy): the configuration no longer declares it. What it holds is lost.`;
      case 'replace':
        return `${base} The plan replaces ${address} (-/+ destroy and then create, or +/- with create_before_destroy): the applied object is destroyed and a new one created, with a new id; what it holds is lost.`;
      default:
        return finding.ruleId === 'pending.import'
          ? `${base} The plan imports the existing object into ${address} and updates the attributes the configuration declares differently.`
          : `${base} The plan updates ${address} in place (~ update) to the configured values below.`;
    }
  }
  switch (action) {
    case 'delete':
      return `${address} was deleted outside Terraform: reverting recreates it (+ create). The new object is empty and has a new id; what the deleted one held (data, attachments made outside Terraform) is not restored.`;
    case 'replace':
      return `A different object is behind ${address} than the one Terraform created: the plan may replace it (-/+ destroy and then create): the live object is destroyed and a new one created from the configuration. Check the plan’s actions before applying.`;
    default:
      return `The plan updates ${address} in place (~ update) back to the configured values below. If one of them cannot change in place, the plan says -/+ (replace): that destroys the live object, check for it.`;
  }
}
