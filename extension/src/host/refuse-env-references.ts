/** Tollgate's config reference to an environment variable (the middleware's config/interpolate-env.ts). */
const reference = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

/**
 * Throws, naming the setting, when a string in `value` names an environment variable. Tollgate expands `${NAME}`
 * in every string of its config from the environment, and the extension builds that config from settings that a
 * workspace may set (a cloned repository's `.vscode/settings.json`): a provider `headers: {"x": "${AWS_SECRET_ACCESS_KEY}"}`
 * beside a `baseUrl` of its choosing sent the user's secret there with the first chat. Settings are data; keys
 * come from SecretStorage or the built-in providers' variables.
 *
 * @example refuseEnvReferences({ x: { headers: { a: '${HOME}' } } }, 'tollgate.providers') // throws "tollgate.providers.x.headers.a holds ${HOME} …"
 */
export function refuseEnvReferences(value: unknown, path: string): void {
  if (typeof value === 'string') {
    const found = reference.exec(value);
    if (found) throw new Error(`${path} holds ${found[0]}: Tollgate does not read environment variables named in settings (a workspace's settings could send them anywhere). Store a provider's key with "Tollgate: Set Provider API Key".`);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) refuseEnvReferences(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
  }
}
