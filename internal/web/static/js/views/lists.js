// What the list views (Runs, Approvals) share: a panel with a counted
// heading and a table, rows filled or an empty line, and a loader that
// drops an answer overtaken by a newer load and keeps the last error.

import {h, clear, errorText} from '../dom.js';

// listPanel is a section whose heading (with a count) names a table of
// columns (each a name, or [name, class]); withActions adds an unnamed
// last column. It returns the section, its tbody and its count.
export function listPanel(id, title, caption, columns, withActions, ...foot) {
  const tbody = h('tbody');
  const count = h('span', {class: 'count'});
  const head = columns.map((c) => {
    const [name, cls] = Array.isArray(c) ? c : [c, ''];
    return h('th', {scope: 'col', class: cls, text: name});
  });
  if (withActions) head.push(h('th', {scope: 'col', class: 'col-actions'}, h('span', {class: 'visually-hidden', text: 'Actions'})));
  const section = h('section', {class: 'panel', 'aria-labelledby': id},
    h('h2', {id}, `${title} `, count),
    h('div', {class: 'table-scroll'}, h('table', {class: 'table'},
      h('caption', {class: 'visually-hidden', text: caption}),
      h('thead', {}, h('tr', {}, ...head)),
      tbody)),
    ...foot);
  return {section, tbody, count, columns: head.length};
}

// fillPanel shows items in a listPanel's table with row, or one line of
// empty text when there is none.
export function fillPanel(panel, items, row, empty) {
  clear(panel.tbody);
  panel.count.textContent = `(${items.length})`;
  if (!items.length) panel.tbody.append(h('tr', {}, h('td', {colspan: String(panel.columns), class: 'empty', text: empty})));
  for (const item of items) panel.tbody.append(row(item));
}

// loader wraps fetch (async, returns what apply takes) so only the newest
// call's answer is applied; a failure sets state.error to what + the
// reason. Each call ends with render. stop() makes pending answers stale.
export function loader(state, what, fetch, apply, render) {
  let seq = 0;
  const load = async () => {
    const my = ++seq;
    try {
      const got = await fetch();
      if (my !== seq) return;
      apply(got);
      state.error = '';
    } catch (err) {
      if (my !== seq) return;
      state.error = `${what}: ${errorText(err)}`;
    }
    render();
  };
  load.stop = () => { seq++; };
  return load;
}
