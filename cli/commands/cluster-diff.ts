import { type Command, InvalidArgumentError } from 'commander';
import { safeIdProblem } from '../../functions/core/registry/formats.js';
import { FAIL_ON_HELP, LISTING_FORMAT_HELP, SEVERITY_HELP } from '../options.js';
import { type ListingOptions, parseListingFormat, parseSeverity } from '../output.js';
import { STORE_OPTION_HELP } from '../usage.js';

export interface ClusterDiffOptions extends ListingOptions {
  registry?: string;
  cluster?: string;
  argocd?: string;
  /** Only with --argocd (ARGOCD_AUTH_TOKEN when left out); a registry cluster names its own. */
  tokenEnv?: string;
  project?: string;
  selector?: string;
  kustomize?: string;
  context?: string;
  terraformState?: string[];
  id: string;
  owner?: string;
  environment: string;
  store?: string;
}

/** `driftwatch cluster-diff`: one cluster's drift and ownership conflicts, recorded like a scan's. */
export function registerClusterDiff(program: Command, run: (code: number) => void): void {
  program
    .command('cluster-diff')
    .description(
      'diff a GitOps cluster (Argo CD, or manifests against the Kubernetes API) and record its findings',
    )
    .option('--registry <file>', 'driftwatch.yaml (policies, owners; with --cluster, the cluster entry)')
    .option('--cluster <id>', 'scan this cluster entry of the registry')
    .option('--argocd <url>', 'an Argo CD server; the API token is read from --token-env')
    .option(
      '--token-env <name>',
      'environment variable holding the Argo CD token, with --argocd (default ARGOCD_AUTH_TOKEN)',
    )
    .option('--project <name>', 'only applications of this Argo CD project')
    .option('--selector <labels>', 'only applications matching this label selector, e.g. team=payments')
    .option('--kustomize <dir>', 'a kustomize overlay to compare with the live cluster (needs --context)')
    .option('--context <name>', 'kubeconfig context of the cluster (KUBECONFIG or ~/.kube/config)')
    .option(
      '--terraform-state <file...>',
      'Terraform state files whose kubernetes/helm resources may conflict',
    )
    .option('--id <id>', 'scope of the findings without --cluster', safeId, 'adhoc')
    .option('--owner <team>', 'owner of the findings without --cluster')
    .option('--environment <name>', 'environment without --cluster, for severity', 'prod')
    .option('--store <location>', STORE_OPTION_HELP)
    .option('--format <format>', LISTING_FORMAT_HELP, parseListingFormat, 'table')
    .option('--severity <level>', SEVERITY_HELP, parseSeverity)
    .option('--fail-on <level>', FAIL_ON_HELP, parseSeverity)
    .action(async (options: ClusterDiffOptions) => {
      // The implementation (and the SDK clients, core modules it needs) loads only when the command runs.
      const { clusterDiffAction } = await import('./cluster-diff-action.js');
      await clusterDiffAction(run, options);
    });
}

function safeId(value: string): string {
  const problem = safeIdProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}
