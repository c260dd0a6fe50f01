type Child = Node | string | null | undefined | false;

/**
 * Creates an element with attributes, event handlers (`on…`) and children; text is always set as text,
 * never parsed as HTML, so nothing from the server or a form can inject markup.
 *
 * @example
 * h('button', { type: 'button', onclick: () => save() }, 'Save')
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string | number | boolean | ((event: Event) => void)> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false) element.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/**
 * A click or submit handler that runs `action` one at a time: `button` stays disabled until the action (its
 * request and the view it renders) settles, so a double-click or Enter pressed twice sends one request, not two
 * (two top-ups, two keys of which one is never shown).
 *
 * @example
 * form.addEventListener('submit', oneAtATime(submit, () => api.topUp(org, 5).then(render, showError)));
 */
export function oneAtATime(button: HTMLButtonElement, action: () => Promise<unknown>): (event: Event) => void {
  return (event) => {
    event.preventDefault();
    if (button.disabled) return;
    button.disabled = true;
    const release = () => (button.disabled = false);
    void action().then(release, release);
  };
}

export const usd = (value: number): string => `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
export const count = (value: number): string => value.toLocaleString('en-US');
