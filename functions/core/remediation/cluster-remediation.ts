import { Document, isMap, isSeq, Scalar, visit, YAMLMap, YAMLSeq } from 'yaml';
import type { ClusterResourceRef, Finding, JsonValue } from '../findings/model.js';
import type { PruneHold } from '../gitops/argo-options.js';
import { pruneStep } from '../gitops/cluster-findings.js';
import type { PathSegment } from '../terraform/plan-model.js';
import { hclInline, inertText } from './hcl-render.js';
import type { AdoptSnippet, RevertPlan } from './model.js';
import { proposedChanges, sidesOf } from './model.js';
import { isRedacted, parseChangePath } from './paths.js';
import { shellCommand, shellQuote } from './shell-quote.js';

/**
 * The cluster equivalent of revert and adopt. Revert: review the difference between git and the
 * cluster (`argocd app diff`, or `kubectl diff` of the rendered manifests) and sync through the
 * GitOps tool or the deployment pipeline. Adopt: the manifest fields to change in git, as YAML holding
 * the live values at the changed paths. Nothing here applies or syncs anything.
 */

export function clusterRevertPlan(finding: Finding): RevertPlan {
  const resource = finding.resource as ClusterResourceRef;
  const object = objectLabel(resource);
  const changes = proposedChanges(finding);
  const notes: string[] = [];
  let commands: string[];
  // Live objects git no longer renders: reverting deletes them (extraneous: the Application was not read).
  const orphaned = finding.ruleId === 'cluster.orphaned' || finding.ruleId === 'cluster.extraneous';
  if (resource.app) {
    const selector = `${resource.group}:${resource.kind}:${resource.namespace ? `${resource.namespace}/` : ''}${resource.name}`;
    // An orphaned object is deleted by a sync with pruning only: a sync without --prune keeps it, and
    // none prunes it under Prune=false (kubectl deletes it then).
    const hold = orphaned ? heldBy(finding) : undefined;
    commands = [
      shellCommand(['argocd', 'app', 'diff', resource.app]),
      hold?.option === 'Prune=false'
        ? shellCommand([
            'kubectl',
            'delete',
            resource.group ? `${resource.kind}.${resource.group}` : resource.kind,
            resource.name,
            ...(resource.namespace ? ['-n', resource.namespace] : []),
          ])
        : shellCommand([
            'argocd',
            'app',
            'sync',
            resource.app,
            '--resource',
            selector,
            ...(orphaned ? ['--prune'] : []),
          ]),
    ];
    notes.push(
      orphaned
        ? `Review the diff, then delete ${object} through your usual process (the second command deletes only it).`
        : `Review the diff, then sync through your usual process (the second command syncs only ${object}); with selfHeal, Argo CD restores git's version by itself.`,
    );
  } else {
    const source = typeof finding.evidence.source === 'string' ? finding.evidence.source : undefined;
    const kustomize = source?.startsWith('kustomize ') ? source.slice('kustomize '.length) : undefined;
    if (kustomize !== undefined) commands = [shellCommand(['kubectl', 'diff', '-k', kustomize])];
    else if (source?.startsWith('s3://'))
      commands = [
        shellCommand(['aws', 's3', 'cp', source, 'rendered.yaml']),
        shellCommand(['kubectl', 'diff', '-f', 'rendered.yaml']),
      ];
    else commands = [`kubectl diff -f ${shellQuote('<manifest>')}`];
    notes.push(
      'Review the diff, then let your deployment pipeline apply the manifests from git: that puts the declared fields back.',
    );
  }
  notes.push('driftwatch never runs kubectl apply or argocd app sync: the sync goes through review.');
  const action = finding.drift?.action;
  const effect =
    finding.ruleId === 'cluster.missing' || action === 'delete'
      ? `${object} is missing from the cluster: reverting recreates it from git (a new object; what the deleted one held is not restored).`
      : orphaned
        ? `${object} is no longer in git: reverting deletes it from the cluster. To delete it: ${resource.app ? pruneStep(resource.app, heldBy(finding)) : 'your pipeline’s prune'}.`
        : `The sync puts the fields below back to git's values in ${object}.`;
  return {
    mode: 'revert',
    system: 'cluster',
    commands,
    // The diff to review: never the sync or the deletion that follows it.
    command: resource.app ? commands[0]! : commands[commands.length - 1]!,
    changes,
    effect,
    notes,
  };
}

/** What holds an orphaned object (its finding's evidence); a finding without it: no automated prune. */
function heldBy(finding: Finding): PruneHold {
  const { pruneHeldBy: by, pruneOption: option } = finding.evidence;
  if (
    (by === 'annotation' || by === 'application') &&
    (option === 'Prune=false' || option === 'Prune=confirm')
  )
    return { by, option };
  return { by: 'sync-policy', option: 'no automated prune' };
}

export function clusterAdoptSnippet(finding: Finding): AdoptSnippet {
  const resource = finding.resource as ClusterResourceRef;
  const object = objectLabel(resource);
  const source =
    typeof finding.evidence.source === 'string' ? ` (${inertText(finding.evidence.source)})` : '';
  const notes: string[] = [];
  const result = (text: string): AdoptSnippet => ({
    mode: 'adopt',
    system: 'cluster',
    language: 'yaml',
    text,
    variables: [],
    notes,
  });
  if (finding.ruleId === 'cluster.missing' || finding.drift?.action === 'delete') {
    notes.push(`Adopting means deleting ${object} from the manifests in git${source}; review and merge.`);
    return result(
      `# ${object} is missing from the cluster: to adopt that, delete it from the manifests in git.\n`,
    );
  }
  if (finding.ruleId === 'cluster.orphaned' || finding.ruleId === 'cluster.extraneous') {
    notes.push(
      `Adopting means adding ${object} back to the manifests in git: \`${shellCommand(['kubectl', 'get', resource.kind, resource.name, ...(resource.namespace ? ['-n', resource.namespace] : []), '-o', 'yaml'])}\` shows it (remove status and server-set metadata).`,
    );
    return result(
      `# ${object} is no longer in git but still in the cluster: to keep it, add it back to git.\n`,
    );
  }

  const document = new Document<YAMLMap>(new YAMLMap());
  const root = document.contents!;
  root.set('kind', resource.kind);
  const metadata = new YAMLMap();
  metadata.set('name', resource.name);
  if (resource.namespace) metadata.set('namespace', resource.namespace);
  root.set('metadata', metadata);
  const comments: string[] = [
    ` ${object}: the live values of the changed fields (adopt = git takes them).`,
    ` Set them in its manifest in git${source}; fields not shown stay as they are.`,
  ];
  for (const change of finding.drift?.changes ?? []) {
    const { current } = sidesOf(finding, change);
    const segments = parseChangePath(change.path);
    const shownPath = inertText(change.path);
    if (!segments || segments.length === 0) {
      comments.push(` ${shownPath}: cannot be placed; set it by hand.`);
      continue;
    }
    if (change.sensitive || isRedacted(current) || segments.some((segment) => isRedacted(segment))) {
      comments.push(
        ` ${shownPath}: a secret value (not shown): keep it out of git, in your secret store (an ExternalSecret or SealedSecret).`,
      );
      continue;
    }
    if (segments.some((segment) => typeof segment === 'number'))
      comments.push(
        ` ${shownPath}: list positions are those of the manifest's list (named elements matched by name): edit that element.`,
      );
    if (current === null) {
      comments.push(` ${shownPath}: gone from the live object: delete it from the manifest.`);
      continue;
    }
    setAt(document, root, segments, current);
  }
  document.commentBefore = comments.join('\n');
  return result(inertYaml(document));
}

/**
 * The document as text that a terminal cannot be turned by: a string holding a control, bidi or
 * invisible character is written double-quoted, and each such character as a `\uNNNN` escape (valid
 * inside YAML double quotes, so the value parses back unchanged). Keys and values that could read as
 * anything but that string are double-quoted too (see {@link plainInAnyYaml}).
 */
function inertYaml(document: Document): string {
  // Keys set from paths are plain JS strings: as Scalar nodes they get the same treatment as values.
  visit(document, {
    Pair(_key, pair) {
      if (typeof pair.key === 'string') pair.key = new Scalar(pair.key);
    },
  });
  visit(document, {
    Scalar(_key, node) {
      if (
        typeof node.value === 'string' &&
        (inertText(node.value) !== node.value || !plainInAnyYaml(node.value))
      )
        node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return document
    .toString({ lineWidth: 0 })
    .split('\n')
    .map((line) => inertText(line))
    .join('\n');
}

/** YAML 1.1's booleans and nulls: go-yaml reads these plain words as true, false or null. */
const YAML11_WORDS =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/;

/**
 * True when a string can be written plain and still be that string for every reader of the
 * manifest. The yaml package decides by YAML 1.2, where `yes`, `on`, `1_000`, `1:20` and
 * `2026-12-05` are strings; kubectl, Argo CD, Helm and kustomize read with go-yaml, which takes them
 * as YAML 1.1 (a boolean, numbers, a timestamp), and `<<` as a key merges a map. So a string stays
 * plain only when it starts with a letter or `_`, holds nothing but letters, digits and `_./-`
 * (no number, date or indicator), and is not one of YAML 1.1's words.
 */
function plainInAnyYaml(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(text) && !YAML11_WORDS.test(text);
}

/** The element created for each list position, per sequence (positions of the manifest's list). */
const positions = new WeakMap<YAMLSeq, Map<number, YAMLMap | YAMLSeq>>();

/** Sets `value` at `segments`, creating maps for names and an element per list position. */
function setAt(document: Document, root: YAMLMap, segments: readonly PathSegment[], value: JsonValue): void {
  let node: YAMLMap | YAMLSeq = root;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const last = index === segments.length - 1;
    if (last) {
      const leaf = document.createNode(value);
      if (isSeq(node)) node.add(leaf);
      else node.set(segment, leaf);
      return;
    }
    const nextIsPosition = typeof segments[index + 1] === 'number';
    if (isSeq(node)) {
      // A position: one element stands for it (the comment says which), shared by its fields.
      let byPosition = positions.get(node);
      if (!byPosition) {
        byPosition = new Map();
        positions.set(node, byPosition);
      }
      let element = byPosition.get(segment as number);
      if (!element) {
        element = nextIsPosition ? new YAMLSeq() : new YAMLMap();
        byPosition.set(segment as number, element);
        node.add(element);
      }
      node = element;
      continue;
    }
    const existing: unknown = node.get(segment, true);
    let child: YAMLMap | YAMLSeq;
    if (isMap(existing) || isSeq(existing)) child = existing;
    else {
      child = nextIsPosition ? new YAMLSeq() : new YAMLMap();
      node.set(segment, child);
    }
    node = child;
  }
}

function objectLabel(resource: ClusterResourceRef): string {
  return inertText(`${resource.kind} ${resource.namespace ? `${resource.namespace}/` : ''}${resource.name}`);
}

/** For prose: a value on one line (the HCL form reads the same as YAML flow for scalars and lists). */
export function inlineValue(value: JsonValue): string {
  return hclInline(value);
}
