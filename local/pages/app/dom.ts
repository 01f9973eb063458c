// A few DOM helpers, so each page reads as the elements it shows.

type Child = Node | string | null | undefined | false;

/** An element with attributes (on* take listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | EventListener | undefined> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat()) if (child) element.append(child);
  return element;
}

/** Replaces the page's content. */
export function show(title: string, ...content: Child[]): void {
  document.title = title;
  document.querySelector('main')!.replaceChildren(h('h1', {}, title), ...content.filter((c): c is Node | string => !!c));
}

/** A labelled input. */
export const field = (label: string, name: string, attributes: Record<string, string | boolean> = {}) =>
  h('label', {}, label, h('input', { name, ...attributes }));

/**
 * A form whose submit button is disabled while `submit` runs; what it returns
 * (or the error it throws) is shown under the form.
 */
export function form(fields: Node[], button: string, submit: (values: Record<string, string>) => Promise<Child | Child[]>): HTMLFormElement {
  const outcome = h('div', { class: 'outcome', role: 'status' });
  const submitButton = h('button', { type: 'submit' }, button);
  const element = h('form', {}, ...fields, submitButton, outcome);
  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    submitButton.disabled = true;
    outcome.replaceChildren('…');
    const values = Object.fromEntries([...new FormData(element)].map(([k, v]) => [k, String(v).trim()]));
    try {
      outcome.replaceChildren(...[await submit(values)].flat().filter((c): c is Node | string => !!c));
    } catch (error) {
      outcome.replaceChildren(problem(error));
    } finally {
      submitButton.disabled = false;
    }
  });
  return element;
}

/** An error shown to the user: the API's message and, per field, what is wrong. */
export function problem(error: unknown): HTMLElement {
  const body = (error as { body?: unknown }).body;
  const details = (body as { error?: { details?: { path?: string; message: string }[] } } | undefined)?.error?.details ?? [];
  const code = (error as { code?: string }).code;
  return h(
    'div',
    { class: 'problem' },
    h('p', {}, error instanceof Error ? error.message : String(error), code ? h('code', {}, ` ${code}`) : null),
    details.length ? h('ul', {}, details.map((d) => h('li', {}, `${d.path ?? ''} ${d.message}`))) : null,
  );
}

export const link = (href: string, text: string) => h('a', { href }, text);
export const paragraph = (...children: Child[]) => h('p', {}, ...children);
