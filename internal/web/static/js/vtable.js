// VirtualTable is a sortable table that puts only the rows in view (plus a
// few either side) into the DOM, so ten thousand rows scroll as smoothly as
// ten. Rows have one fixed height; spacer rows stand in for the rest.

import {h, clear} from './dom.js';

const OVERSCAN = 8;

export class VirtualTable {
  // columns: [{id, label, sortable, className, width, render(row) → Node|string}]
  // rowHeight: px, must match the CSS row height.
  // onSort(id): a sortable header was activated.
  constructor({columns, rowHeight, caption, onSort, rowKey, emptyText}) {
    this.columns = columns;
    this.rowHeight = rowHeight;
    this.onSort = onSort;
    this.rowKey = rowKey;
    this.emptyText = emptyText || 'Nothing to show.';
    this.rows = [];
    this.sort = {id: '', dir: 'desc'};
    this.frame = 0;

    this.thead = h('thead');
    this.tbody = h('tbody');
    this.table = h('table', {class: 'vtable'},
      h('caption', {class: 'visually-hidden', text: caption}),
      h('colgroup', {}, columns.map((c) => h('col', {style: c.width ? {width: c.width} : undefined}))),
      this.thead, this.tbody);
    // The scroll container is focusable so arrow and page keys scroll it.
    this.el = h('div', {class: 'vtable-scroll', tabindex: '0', role: 'region', 'aria-label': caption}, this.table);
    this.el.addEventListener('scroll', () => this.schedule(), {passive: true});
    this.resize = new ResizeObserver(() => this.schedule());
    this.resize.observe(this.el);
    this.renderHead();
  }

  destroy() {
    this.resize.disconnect();
    cancelAnimationFrame(this.frame);
  }

  setSort(id, dir) {
    this.sort = {id, dir};
    this.renderHead();
  }

  setRows(rows) {
    this.rows = rows;
    this.table.setAttribute('aria-rowcount', String(rows.length + 1));
    this.renderBody();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.renderBody();
    });
  }

  renderHead() {
    clear(this.thead);
    const tr = h('tr', {'aria-rowindex': '1'});
    for (const c of this.columns) {
      const active = this.sort.id === c.id;
      const th = h('th', {scope: 'col', class: c.className,
        'aria-sort': c.sortable ? (active ? (this.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none') : undefined});
      if (c.sortable) {
        th.append(h('button', {type: 'button', class: 'sort', onclick: () => this.onSort && this.onSort(c.id)},
          c.label, h('span', {class: 'sort-mark', 'aria-hidden': 'true', text: active ? (this.sort.dir === 'asc' ? '▲' : '▼') : ''})));
      } else {
        th.textContent = c.label;
      }
      tr.append(th);
    }
    this.thead.append(tr);
  }

  renderBody() {
    const n = this.rows.length;
    // Keep focus where it was if the focused row stays rendered.
    const focusKey = document.activeElement && this.tbody.contains(document.activeElement)
      ? document.activeElement.closest('tr')?.dataset.key : undefined;
    // Measure before touching the rows: emptying the body first would
    // shrink the content and clamp the scroll position to the top.
    const headH = this.thead.offsetHeight || 0;
    const viewH = this.el.clientHeight || 600;
    const top = Math.max(0, this.el.scrollTop - headH);
    const frag = document.createDocumentFragment();
    if (n === 0) {
      // emptyText is a string or a node (a richer first screen).
      frag.append(h('tr', {}, h('td', {class: 'empty', colspan: String(this.columns.length)}, this.emptyText)));
      this.tbody.replaceChildren(frag);
      return;
    }
    const first = Math.min(n, Math.max(0, Math.floor(top / this.rowHeight) - OVERSCAN));
    const last = Math.min(n, Math.ceil((top + viewH) / this.rowHeight) + OVERSCAN);
    if (first > 0) frag.append(spacer(first * this.rowHeight, this.columns.length));
    for (let i = first; i < last; i++) {
      const row = this.rows[i];
      const tr = h('tr', {class: 'row', 'aria-rowindex': String(i + 2), dataset: {key: this.rowKey ? this.rowKey(row) : String(i)}});
      for (const c of this.columns) {
        tr.append(h('td', {class: c.className}, c.render(row)));
      }
      frag.append(tr);
    }
    if (last < n) frag.append(spacer((n - last) * this.rowHeight, this.columns.length));
    this.tbody.replaceChildren(frag);
    if (focusKey !== undefined) {
      const tr = [...this.tbody.querySelectorAll('tr.row')].find((r) => r.dataset.key === focusKey);
      const target = tr && tr.querySelector('a, button');
      if (target) target.focus({preventScroll: true});
    }
  }
}

function spacer(height, cols) {
  return h('tr', {class: 'spacer', 'aria-hidden': 'true'}, h('td', {colspan: String(cols), style: {height: `${height}px`}}));
}
