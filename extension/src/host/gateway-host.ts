import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { startSessionGateway, type SessionGateway } from './session-gateway.js';
import { spendLabel } from './budget.js';
import { ProviderKeys } from './provider-keys.js';
import { MEMORY, providerOrigin } from './host-config.js';
import { currentDatabase, gatewaySettingKeys, readSettings } from './read-settings.js';

/**
 * The extension's one Tollgate: started on first use, restarted when its settings or provider keys
 * change, stopped on deactivate. A status bar item shows whether it runs and the current database.
 */
export class GatewayHost implements vscode.Disposable {
  #running: Promise<SessionGateway> | undefined;
  #url: string | undefined;
  /** In-memory databases that SQL ran against since the gateway started: a restart would empty them. */
  readonly #usedScratch = new Set<string>();
  #restartPending = false;
  readonly #status = vscode.window.createStatusBarItem('tollgate.status', vscode.StatusBarAlignment.Left, 50);
  /** Spend of the session budget; a click opens the budget where its value is in effect. */
  readonly #spend = vscode.window.createStatusBarItem('tollgate.spend', vscode.StatusBarAlignment.Left, 49);
  readonly #disposables: vscode.Disposable[] = [];
  readonly #started = new vscode.EventEmitter<void>();
  /** The gateway (re)started: its models may have changed. */
  readonly onDidStart = this.#started.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly keys: ProviderKeys,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.#status.name = 'Tollgate';
    this.#status.command = 'tollgate.pickDatabase';
    this.#render('stopped');
    this.#status.show();
    this.#spend.name = 'Tollgate Spend';
    this.#spend.command = 'tollgate.openBudgetSetting';
    this.#disposables.push(
      this.#started,
      this.#spend,
      this.#status,
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (gatewaySettingKeys.some((key) => event.affectsConfiguration(`tollgate.${key}`))) void this.#settingsChanged();
        else if (event.affectsConfiguration('tollgate.currentDatabase') && this.#url) this.#render('running');
      }),
      keys.onDidChange(() => void this.restart()),
    );
  }

  /** After a model call: the status bar shows the session's spend of its budget. */
  async refreshSpend(): Promise<void> {
    const running = this.#running;
    if (!running) return this.#spend.hide();
    try {
      const wallet = await (await running).walletUsd();
      const budget = readSettings().sessionBudgetUsd;
      this.#spend.text = `$(credit-card) ${spendLabel(budget, wallet)}`;
      this.#spend.tooltip = `Spent of this session's Tollgate budget. Click to change the budget (tollgate.sessionBudgetUsd).`;
      this.#spend.show();
    } catch (error) {
      this.log.error('reading the session spend failed', error);
    }
  }

  /** The current database changed (workspace state): the status bar names it. */
  refreshStatus(): void {
    if (this.#url) this.#render('running');
  }

  /** SqlRunner reports each run, so a restart knows whether it would lose scratch data. */
  noteSqlRun(db: string): void {
    const path = readSettings().databases[db];
    if (path === MEMORY || path === '') this.#usedScratch.add(db);
  }

  /**
   * A setting the gateway is built from changed. Restarting empties the in-memory databases, so when
   * one holds this session's work the user decides when (issue 18 #3: data vanished silently).
   */
  async #settingsChanged(): Promise<void> {
    if (!this.#running) return;
    const losing = [...this.#usedScratch];
    if (losing.length === 0) return this.restart();
    this.#restartPending = true;
    this.#render('running');
    const names = losing.map((name) => `"${name}"`).join(', ');
    const choice = await vscode.window.showWarningMessage(
      `Tollgate settings changed. Applying them restarts the gateway, which empties the in-memory database ${names}.`,
      'Restart Now',
      'Later',
    );
    if (choice === 'Restart Now') await this.restart();
  }

  /** The running gateway, started if it is not. */
  gateway(): Promise<SessionGateway> {
    this.#running ??= this.#start();
    return this.#running;
  }

  async restart(): Promise<void> {
    if (!this.#running) return;
    await this.stop();
    await this.gateway().catch(() => undefined);
  }

  async stop(): Promise<void> {
    const running = this.#running;
    this.#running = undefined;
    this.#usedScratch.clear();
    this.#restartPending = false;
    this.#url = undefined;
    this.#render('stopped');
    this.#spend.hide();
    await running?.then((gateway) => gateway.close()).catch((error) => this.log.error('stopping the gateway failed', error));
  }

  async #start(): Promise<SessionGateway> {
    this.#render('starting');
    const settings = readSettings();
    const dist = join(this.context.extensionPath, 'dist');
    try {
      const gateway = await startSessionGateway(settings, {
        providerKeys: await this.keys.all(Object.keys(settings.providers)),
        baseDir: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? this.context.globalStorageUri.fsPath,
        sqlAssets: { wasmPath: join(dist, 'sql-wasm.wasm'), workerUrl: pathToFileURL(join(dist, 'sql-worker.mjs')) },
        logger: { info: (message) => this.log.info(message), error: (message, error) => this.log.error(message, error ?? '') },
      });
      this.log.info(`Tollgate listening on ${gateway.url} (session key in memory only)`);
      for (const provider of gateway.withheldKeys) {
        const now = providerOrigin(provider, settings.providers) ?? 'an address that is not a URL';
        void vscode.window.showWarningMessage(`Tollgate did not send the API key stored for "${provider}": the settings now point it at ${now}, and the key was stored for another address. Set the key again (Set Provider API Key) if you trust ${now}.`);
      }
      this.#url = gateway.url;
      this.#render('running');
      void Promise.resolve().then(() => {
        this.#started.fire();
        return this.refreshSpend();
      });
      return gateway;
    } catch (error) {
      this.#running = undefined;
      this.#render('failed');
      this.log.error('Tollgate could not start', error);
      throw error;
    }
  }

  #render(state: 'stopped' | 'starting' | 'running' | 'failed'): void {
    const url = this.#url;
    const icon = { stopped: '$(circle-outline)', starting: '$(loading~spin)', running: '$(database)', failed: '$(error)' }[state];
    const pending = this.#restartPending ? ' $(sync)' : '';
    this.#status.text = state === 'running' ? `${icon} Tollgate: ${currentDatabase()}${pending}` : `${icon} Tollgate`;
    this.#status.tooltip =
      state === 'running'
        ? `Tollgate runs in-process on ${url ?? 'loopback'}.${this.#restartPending ? ' Changed settings apply after "Tollgate: Restart Gateway".' : ''} Click to pick the database.`
        : `Tollgate is ${state}. Click to pick the database.`;
    this.#status.accessibilityInformation = { label: state === 'running' ? `Tollgate running, database ${currentDatabase()}` : `Tollgate ${state}` };
  }

  dispose(): void {
    for (const disposable of this.#disposables) disposable.dispose();
  }
}
