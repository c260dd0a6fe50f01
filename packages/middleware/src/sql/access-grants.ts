import type { ResolvedConfig, SqlConfig } from '../config/index.js';

export type Access = 'read' | 'write';

/** Who asks: the key's organization and whether its scope is `sql:read`; undefined when `sql.auth` is off. */
export interface SqlCaller {
  org: string;
  readOnlyScope: boolean;
}

/** Grant key meaning every organization. */
const EVERY_ORGANIZATION = '*';

/**
 * Which organizations reach which database (`sql.databases.<name>.access`, README "Databases and
 * organizations"). A database without `access` lets every organization write — what every config meant
 * before grants existed; a named organization's grant wins over `*`.
 *
 * @example
 * const grants = new AccessGrants({ main: { access: { acme: 'write', audit: 'read' } } });
 * grants.accessOf('main', { org: 'audit', readOnlyScope: false }) // 'read'
 * grants.accessOf('main', { org: 'globex', readOnlyScope: false }) // undefined: answered as an unknown database
 */
export class AccessGrants {
  readonly #grants: Map<string, Record<string, Access> | undefined>;

  constructor(databases: SqlConfig['databases']) {
    this.#grants = new Map(Object.entries(databases).map(([name, db]) => [name, db.access]));
  }

  /** What `caller` may do on `db`: undefined when it may not see it (or it does not exist). */
  accessOf(db: string, caller: SqlCaller | undefined): Access | undefined {
    if (!this.#grants.has(db)) return undefined;
    const grant = this.#grants.get(db);
    if (!caller) return 'write';
    const access = grant === undefined ? 'write' : Object.hasOwn(grant, caller.org) ? grant[caller.org] : grant[EVERY_ORGANIZATION];
    if (access === undefined) return undefined;
    return caller.readOnlyScope ? 'read' : access;
  }

  /** The databases `caller` can see, for the message of an unknown one (never another tenant's names). */
  visibleTo(caller: SqlCaller | undefined): string[] {
    return [...this.#grants.keys()].filter((db) => this.accessOf(db, caller) !== undefined);
  }

  /** Databases without `access`, which every organization may write: worth a warning where keys of several exist. */
  ungranted(): string[] {
    return [...this.#grants].filter(([, grant]) => grant === undefined).map(([db]) => db);
  }
}

/**
 * The start-up warning for databases every organization may write while keys of several organizations are
 * configured (README "Databases and organizations"); undefined when there is nothing to warn about.
 *
 * @example
 * ungrantedWarning(config) // 'SQL databases main have no "access" …'
 */
export function ungrantedWarning(config: ResolvedConfig): string | undefined {
  const organizations = new Set(config.keys.filter((key) => key.scopes.some((scope) => scope === 'sql' || scope === 'sql:read')).map((key) => key.org));
  const open = new AccessGrants(config.sql.databases).ungranted();
  if (!config.sql.auth || organizations.size < 2 || open.length === 0) return undefined;
  return `SQL database${open.length > 1 ? 's' : ''} ${open.join(', ')} ha${open.length > 1 ? 've' : 's'} no "access" grant, so keys of every organization (${[...organizations].join(', ')}) may read and write ${open.length > 1 ? 'them' : 'it'}; grant each database to its organizations in sql.databases.<name>.access`;
}
