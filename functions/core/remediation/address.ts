/**
 * A Terraform resource instance address taken apart: `module.net["eu"].module.sg.aws_security_group.db[0]`
 * → modules `net` (key `["eu"]`) and `sg`, resource `aws_security_group.db`, key `[0]`. Instance keys
 * stay as Terraform wrote them (HCL-quoted strings, or numbers): they are shown, never evaluated.
 */
export interface ParsedAddress {
  modules: { name: string; key?: string }[];
  type: string;
  name: string;
  key?: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*/;

export function parseResourceAddress(address: string): ParsedAddress | undefined {
  const modules: ParsedAddress['modules'] = [];
  let rest = address;
  while (rest.startsWith('module.')) {
    const name = NAME.exec(rest.slice('module.'.length))?.[0];
    if (!name) return undefined;
    rest = rest.slice('module.'.length + name.length);
    const key = instanceKey(rest);
    if (key === null) return undefined;
    rest = rest.slice(key?.length ?? 0);
    modules.push(key === undefined ? { name } : { name, key });
    if (!rest.startsWith('.')) return undefined;
    rest = rest.slice(1);
  }
  // Data sources and outputs are not resources a plan can target or a block can adopt.
  if (rest.startsWith('data.') || (modules.length === 0 && rest.startsWith('output.'))) return undefined;
  const type = NAME.exec(rest)?.[0];
  if (!type || rest[type.length] !== '.') return undefined;
  rest = rest.slice(type.length + 1);
  const name = NAME.exec(rest)?.[0];
  if (!name) return undefined;
  rest = rest.slice(name.length);
  const key = instanceKey(rest);
  if (key === null || rest.length !== (key?.length ?? 0)) return undefined;
  return key === undefined ? { modules, type, name } : { modules, type, name, key };
}

/** The `[…]` at the start of `text`: undefined when there is none, null when it does not close. */
function instanceKey(text: string): string | undefined | null {
  if (!text.startsWith('[')) return undefined;
  if (text[1] === '"') {
    for (let index = 2; index < text.length; index++) {
      if (text[index] === '\\') index++;
      else if (text[index] === '"') return text[index + 1] === ']' ? text.slice(0, index + 2) : null;
    }
    return null;
  }
  const number = /^\[\d+\]/.exec(text)?.[0];
  return number ?? null;
}

/** The address without instance keys (`module.net.aws_x.y`): what a `removed` block's `from` takes. */
export function configurationAddress(parsed: ParsedAddress): string {
  return [...parsed.modules.map((module) => `module.${module.name}`), `${parsed.type}.${parsed.name}`].join(
    '.',
  );
}

/** True when any step of the address has an instance key (count or for_each). */
export function hasInstanceKeys(parsed: ParsedAddress): boolean {
  return parsed.key !== undefined || parsed.modules.some((module) => module.key !== undefined);
}
