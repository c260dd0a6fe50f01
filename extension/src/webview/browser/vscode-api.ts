/** The webview side of VS Code's message channel (injected into every webview as acquireVsCodeApi). */
declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

export const vscodeApi = acquireVsCodeApi();

/** Builds an element with text content (never innerHTML) and attributes. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}
