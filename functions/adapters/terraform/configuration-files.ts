import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which entries of a module directory are its configuration files, and in which order, as Terraform
 * decides it (configs/parser_config_dir.go): `.tf` and `.tf.json` files (OpenTofu also `.tofu` and
 * `.tofu.json`, and ignores a `.tf` file with a `.tofu` twin), not directories, not hidden files
 * (`.#main.tf`, the lock symlink an editor leaves while a file is open), not backups (`main.tf~`,
 * `#main.tf#`); override files (`override.tf`, `*_override.tf`) after all the others, each group by
 * name. Every reader of a root or module directory lists it here, so none of them reads an entry
 * Terraform does not, and a resource is found in its primary file, not in the override that amends it.
 */

export interface ConfigurationFileOptions {
  tofu?: boolean;
}

/** The configuration file names among `names`, in the order Terraform reads them. */
export function configurationFileOrder(
  names: readonly string[],
  options: ConfigurationFileOptions = {},
): string[] {
  const extensions = options.tofu ? ['.tf', '.tf.json', '.tofu', '.tofu.json'] : ['.tf', '.tf.json'];
  const twin = (file: string) => file.replace(/\.tf(\.json)?$/, '.tofu$1');
  const files = names
    .filter((name) => extensions.some((extension) => name.endsWith(extension)))
    .filter((name) => !isIgnoredFile(name))
    .filter((name) => !(options.tofu && /\.tf(\.json)?$/.test(name) && names.includes(twin(name))))
    .sort();
  return [...files.filter((name) => !isOverrideFile(name)), ...files.filter(isOverrideFile)];
}

/** The configuration files of `dir` (names, in Terraform's order); throws when `dir` cannot be read. */
export function configurationFiles(dir: string, options: ConfigurationFileOptions = {}): string[] {
  const names = readdirSync(dir).filter((name) => !isDirectory(join(dir, name)));
  return configurationFileOrder(names, options);
}

/** Editors' and the system's files Terraform skips: hidden (`.`), vim/emacs backups (`~`, `#…#`). */
function isIgnoredFile(name: string): boolean {
  return name.startsWith('.') || name.endsWith('~') || (name.startsWith('#') && name.endsWith('#'));
}

/** `override.tf`, `override.tf.json`, `db_override.tf`: merged into the blocks the other files declare. */
export function isOverrideFile(name: string): boolean {
  const base = name.replace(/\.(tf|tofu)(\.json)?$/, '');
  return base === 'override' || base.endsWith('_override');
}

/** A directory, or a symlink to one; an entry that cannot be stat'ed is left for its reader to report. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
