import { describe, expect, it } from 'vitest';
import { inReleaseNamespace } from '../../../../functions/adapters/manifest-source.js';
import { parseRender } from '../../../../functions/core/gitops/manifests.js';

/**
 * A render is read as kubectl, Helm and Argo CD read it: with sigs.k8s.io/yaml (go-yaml), which
 * keeps YAML 1.1's octal integers. `defaultMode: 0644` (the mode charts and kustomize bases write
 * for ConfigMap and Secret volumes) is 420 on the server, as `kubectl get -o yaml` shows it.
 */
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  template:
    spec:
      containers:
        - name: api
          image: api:1
      volumes:
        - name: config
          configMap:
            name: api-config
            defaultMode: 0644
            items:
              - key: run.sh
                path: run.sh
                mode: 0755
        - name: tls
          secret:
            secretName: api-tls
            defaultMode: 0o400
        - name: quoted
          configMap:
            name: "0644"
            defaultMode: 08
`;

type Volumes = { configMap?: { name: string; defaultMode: number; items?: { mode: number }[] } }[];
function volumesOf(text: string): Volumes {
  const [deployment] = parseRender(text).objects;
  return (deployment as { spec: { template: { spec: { volumes: Volumes } } } }).spec.template.spec.volumes;
}

describe('manifest YAML as Kubernetes tooling reads it', () => {
  it('reads a leading-zero integer as octal (0644 is 420), as kubectl and Argo CD do', () => {
    const volumes = volumesOf(DEPLOYMENT);
    expect(volumes[0]?.configMap?.defaultMode).toBe(0o644);
    expect(volumes[0]?.configMap?.items?.[0]?.mode).toBe(0o755);
    expect((volumes[1] as { secret: { defaultMode: number } }).secret.defaultMode).toBe(0o400);
    // A quoted value stays a string; `08` is no octal number, go-yaml reads it as 8.
    expect(volumes[2]?.configMap).toEqual({ name: '0644', defaultMode: 8 });
  });

  it('keeps the value when a Helm render gets its release namespace written in', () => {
    const volumes = volumesOf(inReleaseNamespace(DEPLOYMENT, 'shop'));
    expect(volumes[0]?.configMap?.defaultMode).toBe(0o644);
    expect(volumes[0]?.configMap?.items?.[0]?.mode).toBe(0o755);
  });
});
