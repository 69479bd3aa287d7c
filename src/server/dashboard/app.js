// The cueue dashboard: views of the Kueue objects, read from the API with
// the user's bearer token, kept current by the API's watches. Every string
// from the server goes into the page as text, never as markup.
'use strict';

const KQ = '/apis/kueue.x-k8s.io/v1beta2';
const VIS = '/apis/visibility.kueue.x-k8s.io/v1beta2';

// ---- session ---------------------------------------------------------------

// A token in the address (#token=...&namespaces=a,b) is moved to sessionStorage and taken
// out of the address, so it is neither kept in history nor sent anywhere.
function hashParams() {
  return new URLSearchParams(location.hash.replace(/^#/, ''));
}

function takeTokenFromHash() {
  const p = hashParams();
  if (!p.has('token'))
    return;
  sessionStorage.setItem('cueue.token', p.get('token'));
  if (p.has('namespaces'))
    sessionStorage.setItem('cueue.namespaces', p.get('namespaces'));
  p.delete('token');
  p.delete('namespaces');
  history.replaceState(null, '', '#' + p.toString());
}

function token() { return sessionStorage.getItem('cueue.token'); }

function namespaces() {
  return (sessionStorage.getItem('cueue.namespaces') || '')
    .split(',').map((s) => s.trim()).filter((s) => s);
}

// ---- API -------------------------------------------------------------------

class ApiError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

async function api(path) {
  const r = await fetch(path, {
    headers: { Authorization: 'Bearer ' + token(), Accept: 'application/json' },
    cache: 'no-store',
  });
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (r.status === 401) {
    signOut('The server did not accept the token (401).');
    throw new ApiError(401, 'unauthorized');
  }
  if (!r.ok)
    throw new ApiError(r.status, (body && body.message) || r.statusText);
  return body;
}

// The items of a namespaced resource: across namespaces when the caller may
// list them so, else in each of the namespaces the user named.
async function listNamespaced(base, plural) {
  try {
    return (await api(`${base}/${plural}`)).items || [];
  } catch (e) {
    if (e.code !== 403 || namespaces().length === 0)
      throw e;
  }
  const items = [];
  for (const ns of namespaces())
    items.push(...((await api(`${base}/namespaces/${encodeURIComponent(ns)}/${plural}`)).items || []));
  return items;
}

// ---- quantities --------------------------------------------------------------

const SUFFIX = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

function qty(s) {
  if (s === undefined || s === null)
    return 0;
  const m = /^([+-]?[0-9.]+)(?:[eE]([+-]?[0-9]+))?([a-zA-Z]*)$/.exec(String(s));
  if (!m || !(m[3] in SUFFIX))
    return 0;
  return parseFloat(m[1]) * (m[2] ? 10 ** parseInt(m[2], 10) : 1) * SUFFIX[m[3]];
}

// ---- DOM helpers -------------------------------------------------------------

// "1 cohort", "3 cohorts": headings read as English at every count.
function counted(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class')
      e.className = v;
    else
      e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined)
      continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function table(headers, rows) {
  const t = el('table', {}, el('tr', {}, ...headers.map((h) => el('th', {}, h))));
  for (const r of rows)
    t.append(el('tr', {}, ...r.map((c) => (c instanceof Node && c.tagName === 'TD') ? c : el('td', {}, c))));
  return t;
}

function num(v) { return el('td', { class: 'num' }, v); }

function errorBox(what, e) {
  const why = e.code === 403 ?
    `You may not read ${what} (403 Forbidden): ${e.message}` :
    `Cannot read ${what}: ${e.message}`;
  return el('p', { class: 'error', 'data-code': String(e.code || '') }, why);
}

function workloadLink(ns, name) {
  const p = new URLSearchParams({ view: 'workload', ns: ns, name: name });
  return el('a', { href: '#' + p.toString() }, `${ns}/${name}`);
}

// A bar: usage within nominal quota, what is borrowed beyond it, and a mark
// at the nominal quota; the scale is the most the queue could use.
function bar(used, nominal, borrowed, limit) {
  const scale = Math.max(nominal + (limit === null ? borrowed : limit), used, nominal, 1e-12);
  const pct = (v) => `${Math.min(100, (100 * v) / scale).toFixed(2)}%`;
  const own = Math.min(used - borrowed, nominal);
  const b = el('span', { class: 'bar', role: 'img' });
  b.append(el('span', { class: 'used' }));
  b.lastChild.style.width = pct(Math.max(own, 0));
  if (borrowed > 0) {
    const s = el('span', { class: 'borrowed' });
    s.style.left = pct(Math.max(own, 0));
    s.style.width = pct(borrowed);
    b.append(s);
  }
  const mark = el('span', { class: 'nominal' });
  mark.style.left = pct(nominal);
  b.append(mark);
  b.setAttribute('aria-label', `${used} used of ${nominal}`);
  return b;
}

function condition(obj, type) {
  return ((obj.status && obj.status.conditions) || []).find((c) => c.type === type);
}

function isTrue(obj, type) {
  const c = condition(obj, type);
  return !!c && c.status === 'True';
}

function age(ts) {
  if (!ts)
    return '';
  const s = Math.max(0, Math.round((Date.now() - Date.parse(ts)) / 1000));
  if (s < 120)
    return `${s}s`;
  if (s < 7200)
    return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}

// ---- views -------------------------------------------------------------------

// Per flavor and resource of a queue: nominal quota, limits, usage, borrowed.
function quotaRows(cq) {
  const rows = new Map();
  for (const g of (cq.spec && cq.spec.resourceGroups) || [])
    for (const f of g.flavors || [])
      for (const r of f.resources || [])
        rows.set(`${f.name}\u0000${r.name}`, {
          flavor: f.name, resource: r.name, nominal: r.nominalQuota || '0',
          borrowingLimit: r.borrowingLimit, lendingLimit: r.lendingLimit, total: '0', borrowed: '0',
        });
  for (const f of (cq.status && cq.status.flavorsUsage) || [])
    for (const r of f.resources || []) {
      const k = `${f.name}\u0000${r.name}`;
      const row = rows.get(k) || { flavor: f.name, resource: r.name, nominal: '0' };
      row.total = r.total || '0';
      row.borrowed = r.borrowed || '0';
      rows.set(k, row);
    }
  return [...rows.values()];
}

function quotaTable(rows) {
  return table(['Flavor', 'Resource', 'Usage', 'Used', 'Nominal', 'Borrowed', 'Borrowing limit', 'Lending limit'],
    rows.map((r) => [r.flavor, r.resource,
      bar(qty(r.total), qty(r.nominal), qty(r.borrowed),
        r.borrowingLimit === undefined ? null : qty(r.borrowingLimit)),
      num(r.total), num(r.nominal), num(r.borrowed),
      num(r.borrowingLimit === undefined ? '-' : r.borrowingLimit),
      num(r.lendingLimit === undefined ? '-' : r.lendingLimit)]));
}

// A number as a quantity: binary suffixes when exact (memory), else decimal.
function fmt(v) {
  for (const s of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'])
    if (v >= SUFFIX[s] && Number.isInteger(v / SUFFIX[s]) && v >= 2 ** 20)
      return `${v / SUFFIX[s]}${s}`;
  return String(Math.round(v * 1000) / 1000);
}

async function viewClusterQueues(main) {
  let cqs, cohorts = [];
  try {
    cqs = (await api(`${KQ}/clusterqueues`)).items || [];
  } catch (e) {
    main.append(errorBox('ClusterQueues', e));
    return;
  }
  try {
    cohorts = (await api(`${KQ}/cohorts`)).items || [];
  } catch (e) {
    main.append(errorBox('Cohorts', e));
  }
  const byCohort = new Map();
  for (const c of cohorts)
    byCohort.set(c.metadata.name, { cohort: c, cqs: [] });
  for (const cq of cqs) {
    const name = (cq.spec && cq.spec.cohortName) || '';
    if (!byCohort.has(name))
      byCohort.set(name, { cohort: null, cqs: [] });
    byCohort.get(name).cqs.push(cq);
  }
  main.append(el('h2', {}, `${counted(cqs.length, 'ClusterQueue')}, ${counted([...byCohort.keys()].filter((k) => k).length, 'cohort')}`));
  const names = [...byCohort.keys()].sort((a, b) => (a === '') - (b === '') || a.localeCompare(b));
  for (const name of names) {
    const { cohort, cqs: members } = byCohort.get(name);
    const box = el('section', { class: 'cohort', 'data-cohort': name });
    if (name) {
      const parent = cohort && cohort.spec && cohort.spec.parentName;
      box.append(el('h2', {}, `Cohort ${name}`, parent ? ` (parent ${parent})` : ''));
      // The cohort's capacity: its own quota and what its ClusterQueues hold.
      const sum = new Map();
      const add = (rows) => {
        for (const r of rows) {
          const k = `${r.flavor}\u0000${r.resource}`;
          const s = sum.get(k) || { flavor: r.flavor, resource: r.resource, nominal: 0, total: 0, borrowed: 0 };
          s.nominal += qty(r.nominal);
          s.total += qty(r.total);
          sum.set(k, s);
        }
      };
      if (cohort)
        add(quotaRows(cohort));
      for (const cq of members)
        add(quotaRows(cq));
      box.append(el('h3', {}, 'Cohort total'));
      box.append(table(['Flavor', 'Resource', 'Usage', 'Used', 'Nominal'],
        [...sum.values()].map((s) => [s.flavor, s.resource, bar(s.total, s.nominal, 0, 0),
          num(fmt(s.total)), num(fmt(s.nominal))])));
    } else {
      box.append(el('h2', {}, 'ClusterQueues in no cohort'));
    }
    for (const cq of members.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
      const st = cq.status || {};
      box.append(el('h3', { 'data-clusterqueue': cq.metadata.name }, `ClusterQueue ${cq.metadata.name}`,
        el('span', { class: 'note' },
          ` pending ${st.pendingWorkloads || 0}, reserving ${st.reservingWorkloads || 0}, admitted ${st.admittedWorkloads || 0}`)));
      box.append(quotaTable(quotaRows(cq)));
    }
    main.append(box);
  }
}

async function viewLocalQueues(main) {
  let lqs;
  try {
    lqs = await listNamespaced(KQ, 'localqueues');
  } catch (e) {
    main.append(errorBox('LocalQueues', e));
    return;
  }
  main.append(el('h2', {}, `${lqs.length} LocalQueues`));
  const usage = (lq) => ((lq.status && lq.status.flavorsUsage) || [])
    .flatMap((f) => (f.resources || []).map((r) => `${r.name} ${r.total} (${f.name})`)).join(', ');
  main.append(table(['Namespace', 'Name', 'ClusterQueue', 'Pending', 'Reserving', 'Admitted', 'Usage'],
    lqs.map((lq) => {
      const st = lq.status || {};
      return [lq.metadata.namespace, lq.metadata.name, (lq.spec && lq.spec.clusterQueue) || '',
        num(st.pendingWorkloads || 0), num(st.reservingWorkloads || 0), num(st.admittedWorkloads || 0), usage(lq)];
    })));
}

function requests(wl) {
  const sum = new Map();
  for (const ps of (wl.spec && wl.spec.podSets) || []) {
    const n = ps.count === undefined ? 1 : ps.count;
    for (const c of (ps.template && ps.template.spec && ps.template.spec.containers) || [])
      for (const [r, v] of Object.entries((c.resources && c.resources.requests) || {}))
        sum.set(r, (sum.get(r) || 0) + n * qty(v));
  }
  return [...sum.entries()].map(([r, v]) => `${r} ${fmt(v)}`).join(', ');
}

function reason(wl) {
  for (const t of ['QuotaReserved', 'Admitted', 'Evicted']) {
    const c = condition(wl, t);
    if (c && c.status !== 'True' && c.message)
      return c.message;
  }
  return '';
}

async function viewPending(main) {
  let wls, lqs;
  try {
    wls = await listNamespaced(KQ, 'workloads');
    lqs = await listNamespaced(KQ, 'localqueues');
  } catch (e) {
    main.append(errorBox('Workloads', e));
    return;
  }
  const lqCQ = new Map(lqs.map((lq) => [`${lq.metadata.namespace}/${lq.metadata.name}`, lq.spec && lq.spec.clusterQueue]));
  // Positions, from the visibility API, per LocalQueue.
  const pos = new Map();
  const errors = [];
  for (const lq of lqs) {
    const ns = encodeURIComponent(lq.metadata.namespace), n = encodeURIComponent(lq.metadata.name);
    try {
      const r = await api(`${VIS}/namespaces/${ns}/localqueues/${n}/pendingworkloads`);
      for (const p of r.items || [])
        pos.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
    } catch (e) {
      errors.push(errorBox(`the positions in LocalQueue ${lq.metadata.namespace}/${lq.metadata.name}`, e));
    }
  }
  const pending = wls.filter((w) => !isTrue(w, 'QuotaReserved') && !isTrue(w, 'Finished'));
  const key = (w) => `${w.metadata.namespace}/${w.metadata.name}`;
  const order = (w) => (pos.has(key(w)) ? pos.get(key(w)).positionInClusterQueue : 1e9);
  pending.sort((a, b) => order(a) - order(b) || key(a).localeCompare(key(b)));
  main.append(el('h2', {}, counted(pending.length, 'pending workload')));
  main.append(...errors);
  main.append(table(['Workload', 'LocalQueue', 'ClusterQueue', 'Position in ClusterQueue', 'Position in LocalQueue', 'Priority', 'Requests', 'Waiting', 'Reason'],
    pending.map((w) => {
      const p = pos.get(key(w));
      const lq = (w.spec && w.spec.queueName) || '';
      return [workloadLink(w.metadata.namespace, w.metadata.name), lq,
        lqCQ.get(`${w.metadata.namespace}/${lq}`) || '',
        num(p ? p.positionInClusterQueue : '-'), num(p ? p.positionInLocalQueue : '-'),
        num((w.spec && w.spec.priority) || 0), requests(w), age(w.metadata.creationTimestamp),
        w.spec && w.spec.active === false ? 'inactive' : reason(w)];
    })));
}

async function viewAdmitted(main) {
  let wls;
  try {
    wls = await listNamespaced(KQ, 'workloads');
  } catch (e) {
    main.append(errorBox('Workloads', e));
    return;
  }
  const admitted = wls.filter((w) => isTrue(w, 'QuotaReserved') && !isTrue(w, 'Finished'));
  admitted.sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
  main.append(el('h2', {}, counted(admitted.length, 'admitted workload')));
  main.append(table(['Workload', 'LocalQueue', 'ClusterQueue', 'State', 'Priority', 'Assigned', 'Admitted for'],
    admitted.map((w) => {
      const adm = (w.status && w.status.admission) || {};
      const assigned = (adm.podSetAssignments || []).map((a) => Object.entries(a.resourceUsage || {})
        .map(([r, v]) => `${r} ${v} (${(a.flavors || {})[r] || ''})`).join(', ')).join('; ');
      const c = condition(w, isTrue(w, 'Admitted') ? 'Admitted' : 'QuotaReserved');
      return [workloadLink(w.metadata.namespace, w.metadata.name), (w.spec && w.spec.queueName) || '',
        adm.clusterQueue || '', isTrue(w, 'Admitted') ? 'Admitted' : 'QuotaReserved',
        num((w.spec && w.spec.priority) || 0), assigned, age(c && c.lastTransitionTime)];
    })));
}

// A JSON value as nested definition lists, every string as text.
function tree(v) {
  if (v === null || typeof v !== 'object')
    return document.createTextNode(String(v));
  // A list of flat records (the flavors tried, the candidates) reads best as a table.
  const flat = (x) => x !== null && typeof x === 'object' && !Array.isArray(x) &&
    Object.values(x).every((y) => y === null || typeof y !== 'object');
  if (Array.isArray(v) && v.length > 0 && v.every(flat)) {
    // The prose (reason, message) goes last, after the numbers.
    const prose = (c) => (c === 'reason' || c === 'message' ? 1 : 0);
    const cols = [...new Set(v.flatMap((x) => Object.keys(x)))].sort((a, b) => prose(a) - prose(b));
    return table(cols, v.map((x) => cols.map((c) => (x[c] === undefined ? '' : String(x[c])))));
  }
  const dl = el('dl', { class: 'tree' });
  for (const [k, x] of Object.entries(v)) {
    if (x !== null && typeof x === 'object') {
      dl.append(el('dt', {}, Array.isArray(v) ? `#${k}` : k), el('dd', {}, tree(x)));
    } else {
      dl.append(el('dt', {}, Array.isArray(v) ? `#${k}` : k), el('dd', {}, String(x)));
    }
  }
  return dl;
}

async function viewWorkload(main, p) {
  const ns = p.get('ns') || '', name = p.get('name') || '';
  main.append(el('h2', {}, `Workload ${ns}/${name}`));
  const path = `namespaces/${encodeURIComponent(ns)}/workloads/${encodeURIComponent(name)}`;
  try {
    const wl = await api(`${KQ}/${path}`);
    main.append(el('h3', {}, 'Conditions'));
    main.append(table(['Type', 'Status', 'Reason', 'Message', 'Since'],
      ((wl.status && wl.status.conditions) || []).map((c) => [c.type, c.status, c.reason || '', c.message || '', age(c.lastTransitionTime)])));
  } catch (e) {
    main.append(errorBox(`workload ${ns}/${name}`, e));
    return;
  }
  main.append(el('h3', {}, 'Explanation'));
  try {
    const ex = await api(`${VIS}/${path}/explanation`);
    delete ex.kind;
    delete ex.apiVersion;
    delete ex.metadata;
    main.append(tree(ex));
  } catch (e) {
    main.append(errorBox(`the explanation of ${ns}/${name}`, e));
  }
}

const VIEWS = {
  clusterqueues: { render: viewClusterQueues, watch: ['clusterqueues', 'cohorts'] },
  localqueues: { render: viewLocalQueues, watch: ['localqueues'] },
  pending: { render: viewPending, watch: ['workloads', 'localqueues'] },
  admitted: { render: viewAdmitted, watch: ['workloads'] },
  workload: { render: viewWorkload, watch: ['workloads'] },
};

// ---- live updates ------------------------------------------------------------

let watchAbort = null;
let refreshTimer = null;
let rendering = false;
let again = false;

function scheduleRefresh() {
  if (refreshTimer)
    return;
  refreshTimer = setTimeout(() => { refreshTimer = null; render(); }, 300);
}

// Read a watch stream; each event (after the first burst) re-renders the view.
async function watchOne(path, signal) {
  const live = document.getElementById('live');
  for (;;) {
    try {
      const r = await fetch(path + (path.includes('?') ? '&' : '?') + 'watch=1&allowWatchBookmarks=false', {
        headers: { Authorization: 'Bearer ' + token(), Accept: 'application/json' },
        signal: signal,
      });
      if (!r.ok || !r.body)
        return; // not allowed to watch: the view still shows what it read
      live.textContent = 'live';
      live.classList.add('on');
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done)
          break;
        if (dec.decode(value, { stream: true }).includes('"type"'))
          scheduleRefresh();
      }
    } catch (e) {
      if (signal.aborted)
        return;
    }
    live.classList.remove('on');
    live.textContent = 'reconnecting';
    await new Promise((res) => setTimeout(res, 2000));
    if (signal.aborted)
      return;
  }
}

function startWatches(plurals) {
  if (watchAbort)
    watchAbort.abort();
  watchAbort = new AbortController();
  const clusterScoped = new Set(['clusterqueues', 'cohorts']);
  for (const plural of plurals) {
    if (clusterScoped.has(plural)) {
      watchOne(`${KQ}/${plural}`, watchAbort.signal);
      continue;
    }
    // A watch across namespaces if allowed, else one per named namespace.
    fetch(`${KQ}/${plural}?limit=1`, { headers: { Authorization: 'Bearer ' + token() } }).then((r) => {
      if (r.ok || namespaces().length === 0)
        watchOne(`${KQ}/${plural}`, watchAbort.signal);
      else
        for (const ns of namespaces())
          watchOne(`${KQ}/namespaces/${encodeURIComponent(ns)}/${plural}`, watchAbort.signal);
    }, () => {});
  }
}

// ---- page --------------------------------------------------------------------

let currentView = '';

async function render() {
  if (rendering) {
    again = true;
    return;
  }
  rendering = true;
  try {
    const p = hashParams();
    const name = VIEWS[p.get('view')] ? p.get('view') : 'clusterqueues';
    for (const a of document.querySelectorAll('#nav a'))
      a.classList.toggle('current', a.dataset.view === name);
    const main = el('main', { id: 'view', 'data-view': name });
    await VIEWS[name].render(main, p);
    main.append(el('p', { class: 'note', id: 'updated' }, `Updated ${new Date().toLocaleTimeString()}`));
    document.getElementById('view').replaceWith(main);
    const sig = name + '|' + p.toString();
    if (sig !== currentView) {
      currentView = sig;
      startWatches(VIEWS[name].watch);
    }
    document.body.dataset.ready = 'true';
  } catch (e) {
    if (e.code !== 401)
      document.getElementById('view').replaceChildren(errorBox('the view', e));
  } finally {
    rendering = false;
    if (again) {
      again = false;
      scheduleRefresh();
    }
  }
}

function signOut(why) {
  sessionStorage.removeItem('cueue.token');
  if (watchAbort)
    watchAbort.abort();
  currentView = '';
  showLogin(why);
}

function showLogin(why) {
  document.getElementById('login').hidden = false;
  document.getElementById('signout').hidden = true;
  document.getElementById('namespaces').value = namespaces().join(',');
  const main = el('main', { id: 'view' });
  if (why)
    main.append(el('p', { class: 'error' }, why));
  document.getElementById('view').replaceWith(main);
}

function start() {
  takeTokenFromHash();
  document.getElementById('login').addEventListener('submit', (ev) => {
    ev.preventDefault();
    sessionStorage.setItem('cueue.token', document.getElementById('token').value.trim());
    sessionStorage.setItem('cueue.namespaces', document.getElementById('namespaces').value);
    document.getElementById('token').value = '';
    document.getElementById('login').hidden = true;
    document.getElementById('signout').hidden = false;
    render();
  });
  document.getElementById('signout').addEventListener('click', () => signOut(''));
  window.addEventListener('hashchange', () => { takeTokenFromHash(); if (token()) render(); });
  if (!token()) {
    showLogin('');
    return;
  }
  document.getElementById('signout').hidden = false;
  render();
}

start();
