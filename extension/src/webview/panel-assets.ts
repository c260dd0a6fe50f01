import * as vscode from 'vscode';
import type { ViewReady } from './protocol.js';
import { webviewHtml } from './webview-html.js';

/** Webview options shared by both panels: scripts on, and only this extension's `dist/webview` readable. */
export function createPanel(context: vscode.ExtensionContext, viewType: string, title: string, column: vscode.ViewColumn): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(viewType, title, { viewColumn: column, preserveFocus: true }, panelOptions(context));
}

/** A panel VS Code restored after a reload gets the same options as a new one. */
export function configurePanel(context: vscode.ExtensionContext, panel: { readonly webview: vscode.Webview }): void {
  panel.webview.options = panelOptions(context);
}

function panelOptions(context: vscode.ExtensionContext): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview')] };
}

/** Loads `dist/webview/<script>.js` and the shared stylesheet into the panel under the strict CSP, as load `load`. */
export function loadView(context: vscode.ExtensionContext, panel: { readonly webview: vscode.Webview }, script: string, title: string, load: string): void {
  const asset = (file: string) => panel.webview.asWebviewUri(vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview', file)).toString();
  panel.webview.html = webviewHtml({ cspSource: panel.webview.cspSource, scriptUri: asset(`${script}.js`), styleUri: asset('view.css'), title, load });
}

/** What loadWhenShown gives its panel: whether a view's 'ready' is the current load's, and whether one was. */
export interface ViewLoading {
  /** True, and the view counts as ready, only for the 'ready' of the HTML set last. */
  accept(ready: ViewReady): boolean;
  readonly ready: boolean;
}

/** How long a shown view may take to say 'ready' before its HTML is set again, and how often that is tried. */
const READY_GRACE_MS = 3_000;
// Up to ~30 s: in a CI run a restored panel stayed blank past three reloads (9 s), and setting the HTML of a
// view that never said 'ready' again is harmless.
const MAX_RELOADS_WHILE_SHOWN = 10;
/**
 * Loads left unanswered before the owner is asked for a new panel (`replace`): in CI runs after a window reload
 * (session 19, code-server 4.100, "Found unexpected service worker controller" in the page's console), a
 * restored panel ran none of ten documents set into it, while a panel created anew works at once.
 */
const LOADS_BEFORE_REPLACING = 3;
/** Replacements a panel owner makes at most per session: a host where no webview ever runs is not chased forever. */
export const MAX_REPLACED_PANELS = 3;

/**
 * Loads a view now, and again each time its panel is shown while the view has not said 'ready' yet, or when it
 * stays shown without saying it. When VS Code restores two panels after a window reload, one of them sometimes
 * stays blank: its document never runs its script (seen in code-server 4.100, either panel, cause not found).
 * Setting the HTML again brings it back; the restored panel may be the one already in view, so waiting for the
 * user to switch tabs is not enough. Each load is numbered and only the last one's 'ready' counts: a document
 * slow to start on a busy machine can say 'ready' after its HTML was set again, and taking that for the new
 * document's would stop the reloads while the new one stays blank. A panel whose documents never run even so is
 * handed to `replace`, once, when given (a webview view cannot be replaced: it keeps being reloaded).
 */
export function loadWhenShown(surface: { readonly webview: vscode.Webview; readonly visible: boolean; onDidDispose: vscode.Event<void> } & ({ onDidChangeViewState: vscode.Event<unknown> } | { onDidChangeVisibility: vscode.Event<void> }), load: (load: string) => void, replace?: () => void): ViewLoading {
  let reloads = 0;
  let loads = 0;
  let ready = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let loadedAt = 0;
  const loadAndWatch = () => {
    ready = false;
    loadedAt = Date.now();
    load(String(++loads));
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!surface.visible || ready) return;
      if (replace && loads >= LOADS_BEFORE_REPLACING) return replace();
      if (reloads++ < MAX_RELOADS_WHILE_SHOWN) loadAndWatch();
    }, READY_GRACE_MS);
  };
  loadAndWatch();
  const shown = 'onDidChangeViewState' in surface ? surface.onDidChangeViewState : surface.onDidChangeVisibility;
  // A load younger than its grace is left to start (its timer follows it): a new panel becomes visible right
  // after its HTML is set, and loading it again then discarded the first document every time.
  const listener = shown(() => {
    if (surface.visible && !ready && Date.now() - loadedAt >= READY_GRACE_MS) loadAndWatch();
  });
  surface.onDidDispose(() => {
    clearTimeout(timer);
    listener.dispose();
  });
  return {
    accept(message) {
      // The same load may say it twice: VS Code itself can reload a view's document with the HTML it has.
      if (message.load !== String(loads)) return false;
      ready = true;
      return true;
    },
    get ready() {
      return ready;
    },
  };
}
