// The desk's page: what the panel shows, counted here between the desk's updates, and its
// buttons. It only renders: every title, label, button, bar and picker entry is a field of the
// desk's state (`pomodoro ctl status --json`'s, docs/control.md), made by the desk's own rules;
// this file counts the time between the desk's updates and lays them out. No framework, no
// build step: this file is served as it is.
'use strict';

const $ = (id) => document.getElementById(id);
// Nothing from the desk (a state, a keep-alive every 15 s) for this long: the stream is dead.
const STALE_MS = 35000;
// The server's keep-alive: a stream quiet for longer when the phone wakes is replaced at once.
const KEEP_ALIVE_MS = 16000;

let state = null; // the desk's last state
let at = 0; // when it came (performance.now())
let heard = 0; // when the stream last said anything (only the stream: a reply to a request says nothing of it)
let online = false;
let session = { paired: false, view: 'open', pairing_locked: false };
let stream = null; // the event stream's AbortController
let retries = 0;
let dialed = null; // seconds chosen on the page's dial, not yet sent
let dialTimer = 0;
let history = null;
// What the streams have said (a state, offline), counted: a reply to a request sent before the
// latest of them is older than it and says nothing (a state from before `offline` must not bring
// back a time the desk no longer has; the stream says the state again when the desk is back).
let said = 0;
let polling = 0; // while offline: the state asked for every 2 s
let asked = null; // the state whose earned_break_next_ms has been asked about

// --- time ---
const two = (v) => String(v).padStart(2, '0');
// As the panel's Swift functions of these names (pinned by Tests/web/clock-table.json): a time
// left rounded up, a time counted down.
const shownSeconds = (ms) => (ms <= 0 ? 0 : Math.ceil(ms / 1000));
const wholeSeconds = (ms) => Math.floor(ms / 1000);
// "MM:SS" below an hour, "H:MM:SS" from one (PomodoroCore's formatClock).
function clock(sec) {
  sec = Math.max(0, sec);
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  return h ? `${h}:${two(m)}:${two(s)}` : `${two(m)}:${two(s)}`;
}
// "M:SS" below an hour: a length in running text (formatShortClock).
function shortClock(sec) {
  const t = clock(sec);
  return t.length === 5 && t[0] === '0' ? t.slice(1) : t;
}
// "1h30m" (DurationText.format).
function durationText(sec) {
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  return (h ? h + 'h' : '') + (m ? m + 'm' : '') + (s || (!h && !m) ? s + 's' : '');
}

// --- what the panel shows ---
// A flow's state carries the time counted (elapsed_ms), a countdown's the time left.
const countsUp = (s) => s.elapsed_ms !== undefined;

// The time as counted now: down from remaining_ms, or up from elapsed_ms in a flow; `run` is
// the time since the desk said it, while running.
function counted(now) {
  const run = state.phase === 'running' ? now - at : 0;
  if (countsUp(state)) return { up: true, ms: state.elapsed_ms + run, run };
  return { up: false, ms: Math.max(0, (state.remaining_ms || 0) - run), run };
}

function tick() {
  const now = performance.now();
  if (online && now - heard > STALE_MS) {
    setOffline(true);
    connect();
  }
  const time = $('time'), bar = $('bar'), sub = $('sub');
  if (!online || !state) {
    time.textContent = online || !heard ? '--:--' : 'Offline';
    time.classList.remove('hours');
    bar.style.width = '0';
    sub.textContent = online || !heard ? '' : 'The desk cannot be reached';
    return;
  }
  const c = counted(now);
  let sec = c.up ? wholeSeconds(c.ms) : shownSeconds(c.ms);
  if (dialed !== null && state.phase === 'idle') sec = dialed;
  const text = clock(sec);
  if (time.textContent !== text) time.textContent = text;
  time.classList.toggle('hours', text.length > 5);
  // The bar as the desk drew it, a countdown's growing with the time since; a flow's earned break
  // changes at the time the desk named, when the state is asked for again.
  const done = (state.progress_ms || 0) + (c.up ? 0 : c.run);
  const fill = state.progress_total_ms ? done / state.progress_total_ms : 0;
  if (c.up && state.earned_break_next_ms !== undefined && c.ms >= state.earned_break_next_ms && asked !== state) {
    asked = state;
    loadState();
  }
  let note = '';
  if (c.up) {
    const e = state.earned_break_ms || 0;
    note = state.phase === 'idle' ? 'Counts up until you end it' : `Break ${shortClock(wholeSeconds(e))} earned`;
  } else if (state.total_ms) {
    // The end by this phone's clock (the desk's ends_at only comes with a synchronised clock).
    if (state.phase === 'running') {
      const end = new Date(Date.now() + c.ms);
      note = `Ends at ${two(end.getHours())}:${two(end.getMinutes())}`;
    } else if (state.phase === 'paused') note = 'Paused';
  }
  bar.style.width = `${Math.max(0, Math.min(1, fill)) * 100}%`;
  if (sub.textContent !== note) sub.textContent = note;
}

function render() {
  const desk = $('desk');
  const s = state;
  const canAct = online && !!s && session.paired;
  desk.className = [
    s ? `phase-${s.phase} kind-${s.kind}` : 'phase-none', online ? 'live' : heard ? 'offline' : '',
    session.paired ? 'paired' : 'unpaired',
  ].join(' ');
  $('link').textContent = online ? 'live' : heard ? 'offline' : 'connecting';
  document.title = s && online ? `${s.title} · Pomodoro` : 'Pomodoro';
  $('title').textContent = s && online ? s.title : 'Pomodoro';
  // Paused and ringing have their own icons; else the kind's (index.html's symbols i-<kind>).
  const icon = !s ? 'tomato' : s.phase === 'paused' ? 'pause' : s.phase === 'ringing' ? 'bell' : s.kind;
  $('icon').firstElementChild.setAttribute('href', `#i-${icon}`);
  // The buttons, as the desk offers them: Cancel (or End) only while there is a timer.
  const start = $('start');
  if (s) start.textContent = s.start;
  start.disabled = !canAct;
  const cancel = $('cancel');
  cancel.hidden = !s || s.cancel === undefined;
  if (s && s.cancel !== undefined) cancel.textContent = s.cancel;
  $('extend').hidden = !s || !s.can_extend;
  $('skip').hidden = !s || !s.can_skip;
  for (const id of ['cancel', 'extend', 'skip']) $(id).disabled = !canAct;
  // Unpaired: the pairing takes the buttons' place.
  $('controls').hidden = !session.paired;
  $('pairing').hidden = session.paired;
  $('pair-show').disabled = session.pairing_locked;
  $('pair-why').textContent = session.pairing_locked
    ? 'Pairing is locked for now after wrong codes; try again later.'
    : session.view === 'paired' && !session.paired
      ? 'This desk shows itself to paired phones only. Pair this one with the code the desk shows.'
      : "Pair this phone to use the desk's buttons.";
  // The picker: idle only.
  const idle = canAct && s.phase === 'idle';
  $('picker').hidden = !idle;
  if (idle) {
    renderPicker(s);
    for (const b of $('modes').children) b.setAttribute('aria-pressed', String(b.dataset.mode === s.mode));
    $('dial').hidden = countsUp(s);
    const sec = dialed !== null ? dialed : shownSeconds(s.total_ms || 0);
    $('duration').textContent = lengthText(sec);
  }
  renderToday();
  renderLabelGoalMarks(s, canAct);
  renderProfile(s, canAct);
  renderRoom(s);
  tick();
}

// The picker's buttons: the modes the desk offers, with their presets; made again when they change.
function renderPicker(s) {
  const modes = s.picker || [], names = s.picker_names || [], presets = s.picker_presets_ms || [];
  const key = JSON.stringify([modes, names, presets]);
  const box = $('modes');
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren();
  modes.forEach((mode, i) => {
    const b = el('button', '', names[i] || mode);
    b.dataset.mode = mode;
    if (presets[i] !== null && presets[i] !== undefined) b.append(el('small', '', lengthText(Math.round(presets[i] / 1000))));
    b.onclick = () => {
      dialed = null;
      command({ cmd: 'set', mode });
    };
    box.append(b);
  });
}

// A length as the picker shows it: "25 min", or "M:SS" when not whole minutes.
const lengthText = (sec) => (sec % 60 ? shortClock(sec) : `${sec / 60} min`);

function renderToday() {
  const box = $('today');
  const n = state && Number.isInteger(state.today) ? state.today : null;
  const key = String(n);
  if (box.dataset.n === key) return;
  box.dataset.n = key;
  box.replaceChildren();
  if (n === null) return;
  for (let i = 0; i < Math.min(n, 12); i++) box.append(symbol('tomato'));
  box.append(el('span', '', n > 12 ? `+${n - 12} today` : n ? 'today' : 'No tomatoes yet today'));
}

// The label under the title (always as text), the goal's progress, the interruptions: each as
// the wire says it, hidden when it is not there.
let labelSaid; // the label last put in the field
function renderLabelGoalMarks(s, canAct) {
  s = online ? s : null;
  const text = s && typeof s.label === 'string' ? s.label : '';
  $('label').textContent = text;
  $('label').hidden = !text;
  const goal = s && s.goal > 0 ? s.goal : 0;
  $('goal').hidden = !goal;
  $('goal').classList.toggle('met', !!(goal && s.goal_met));
  if (goal) {
    $('goal-bar').max = goal;
    $('goal-bar').value = Math.min(goal, s.today || 0);
    $('goal-text').textContent = `${s.today || 0}/${goal} today${s.goal_met ? ', goal met' : ''}`;
  }
  const marks = s && Number.isInteger(s.interruptions);
  $('marks').hidden = !marks;
  if (marks) {
    $('marks').textContent = `Interruptions: ${s.interruptions} (me ${s.interruptions_internal}, other ${s.interruptions_external})`;
  }
  $('interrupt').hidden = !(s && s.can_interrupt);
  const recent = (s && s.recent_labels) || [];
  const list = $('label-recent'), key = JSON.stringify(recent);
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    list.replaceChildren(...recent.map((t) => Object.assign(el('option'), { value: t })));
  }
  $('label-card').hidden = !session.paired;
  const field = $('label-text');
  if (s && labelSaid !== text && document.activeElement !== field) field.value = labelSaid = text;
  for (const id of ['interrupt-internal', 'interrupt-external', 'label-text', 'label-set', 'label-clear']) {
    $(id).disabled = !canAct;
  }
}

// The config's profiles as the desk's chooser lists them, '(base)' last; the one in use chosen.
function renderProfile(s, canAct) {
  const names = (online && s && s.profiles) || [], pick = $('profile'), key = JSON.stringify(names);
  $('profile-card').hidden = !names.length;
  if (pick.dataset.key !== key) {
    pick.dataset.key = key;
    pick.replaceChildren(...[...names, ''].map((n) => Object.assign(el('option', '', n || '(base)'), { value: n })));
  }
  if (s) pick.value = s.profile || '';
  pick.disabled = !canAct;
}

// An element with its class and text (text, never markup).
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The room (docs/room.md): its line, and its desks with what each does and its label, as the
// desk says them; a desk in focus marked.
function renderRoom(s) {
  const room = online && s && s.room !== undefined;
  $('room').hidden = !room;
  if (!room) return;
  $('room-text').textContent = `Room ${s.room_text}`;
  const desks = s.room_desks || [], texts = s.room_desk_texts || [], labels = s.room_desk_labels || [];
  const list = $('room-desks'), key = JSON.stringify([desks, texts, labels]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...desks.map((desk, i) => {
    const li = el('li', 'head');
    const focus = (s.room_desk_focusing || [])[i];
    li.append(el('b', '', desk), el('span', focus ? 'chip focus' : '', [texts[i], labels[i]].filter(Boolean).join(' · ')));
    return li;
  }));
}

function symbol(name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  const use = document.createElementNS('http://www.w3.org/2000/svg', 'use');
  use.setAttribute('href', `#i-${name}`);
  svg.setAttribute('aria-hidden', 'true');
  svg.append(use);
  return svg;
}

// --- the desk's state ---
function apply(s) {
  if (!s || !s.phase) return;
  const before = state ? state.phase : '';
  state = s;
  at = performance.now();
  online = true;
  clearInterval(polling);
  polling = 0;
  if (s.phase !== 'idle') dialed = null;
  render();
  // A session ended or rang: the week changed.
  if (before && before !== s.phase && (s.phase === 'ringing' || s.phase === 'idle')) loadWeek();
}

// Offline: the stream says so, or went quiet. The state is asked for every 2 s meanwhile, so the
// page is live again as soon as the desk answers, whether or not the stream repeats a state
// that did not change while the desk was away.
function setOffline(off) {
  if (off && !polling) polling = setInterval(loadState, 2000);
  if (off === !online) return;
  online = !off;
  render();
}

// Server-Sent Events read with fetch: its keep-alive comments count as signs of life (an
// EventSource hides them), and a 401 is seen.
async function connect() {
  if (stream) stream.abort();
  const mine = (stream = new AbortController());
  heard = performance.now(); // a new stream gets its own 35 s
  let reason = '';
  try {
    const r = await fetch('/events', { signal: mine.signal, cache: 'no-store' });
    if (!r.ok || !r.body) {
      const j = await r.json().catch(() => ({}));
      reason = j.error || `HTTP ${r.status}`;
      if (r.status === 401) {
        session.paired = false;
        render();
      }
      throw new Error(reason);
    }
    retries = 0;
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      heard = performance.now();
      buffer = (buffer + value).replace(/\r\n?/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  } catch (e) {
    if (mine !== stream) return; // replaced by a newer stream
    reason = reason || e.message;
  }
  if (mine !== stream) return;
  stream = null;
  setOffline(true);
  if (reason) $('sub').textContent = `The desk cannot be reached: ${reason}`;
  setTimeout(() => stream || connect(), Math.min(5000, 250 * 2 ** retries++));
}

function dispatch(block) {
  let event = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (!line || line[0] === ':') continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (event === 'state') {
    try {
      said++;
      apply(JSON.parse(data.join('\n')));
    } catch (e) {
      say(`The desk sent a state this page cannot read: ${e.message}`);
    }
  } else if (event === 'offline') {
    said++;
    setOffline(true);
  }
}

// --- requests ---
// GET (no body) or POST JSON; every answer as {ok, status, json}, an error's reason in json.error.
async function api(path, body) {
  const options = body === undefined ? { cache: 'no-store' }
    : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  let r;
  try {
    r = await fetch(path, options);
  } catch (e) {
    return { ok: false, status: 0, json: { error: `the desk's server cannot be reached (${e.message})` } };
  }
  const json = await r.json().catch(() => ({}));
  if (!r.ok && !json.error) json.error = `${path} answered HTTP ${r.status}`;
  return { ok: r.ok, status: r.status, json };
}

let sayTimer = 0;
function say(text) {
  const m = $('message');
  m.textContent = text;
  m.hidden = !text;
  clearTimeout(sayTimer);
  if (text) sayTimer = setTimeout(() => (m.hidden = true), 8000);
}

async function command(body) {
  const before = said;
  const r = await api('/api/command', body);
  if (r.ok) {
    say('');
    // The reply's state, unless the stream has spoken since: replies on their own connections
    // may arrive out of order (a set's after the start that followed it), the stream's may not.
    if (r.json.state && said === before) apply(r.json.state);
    return;
  }
  if (r.status === 401) {
    session.paired = false;
    render();
  }
  say(r.json.error);
}

async function loadSession() {
  const r = await api('/api/session');
  if (r.ok) session = r.json;
  render();
}

// The state asked for (a phone waking, offline polling), believed only when the stream has said
// nothing since it was asked for.
async function loadState() {
  const before = said;
  const r = await api('/api/state');
  if (said !== before) return;
  if (r.ok) apply(r.json);
  else if (r.status === 503 || r.status === 0) setOffline(true);
}

// --- pairing ---
async function pairShow() {
  const r = await api('/api/pair', {});
  if (!r.ok && r.json.printed_code_pairs) {
    // The desk's code is locked for everyone; the one `sudo pomodoro web pair` prints still pairs.
    $('pair-form').hidden = false;
    $('pair-show').hidden = true;
    return say(r.json.error);
  }
  if (!r.ok) {
    if (r.status === 429) session.pairing_locked = true;
    render();
    return say(r.json.error);
  }
  say(`The code is ${r.json.shown || "on the desk's screen"}.`);
  $('pair-form').hidden = false;
  $('pair-show').hidden = true;
  $('pair-code').focus();
}

async function pairSend(e) {
  e.preventDefault();
  return pairWith($('pair-code').value.trim());
}

// The desk's QR code opens `/#pair=123456`: the code leaves the address bar and the history at
// once (replaceState), and is sent as a typed one is.
function scannedCode() {
  if (!location.hash.startsWith('#pair=')) return null;
  const m = /^#pair=(\d{6})$/.exec(location.hash);
  window.history.replaceState(null, '', location.pathname + location.search);
  if (!m) say('That address carries no 6-digit code: Pair, and type the code the desk shows.');
  return m && m[1];
}

async function pairScanned() {
  const code = scannedCode();
  if (code) await pairWith(code);
}

async function pairWith(code) {
  const r = await api('/api/pair', { code });
  if (!r.ok) {
    if (r.status === 429 && !r.json.printed_code_pairs) session.pairing_locked = true;
    render();
    return say(r.json.error);
  }
  $('pair-code').value = '';
  $('pair-form').hidden = true;
  $('pair-show').hidden = false;
  say('Paired: this phone uses the desk now.');
  await loadSession();
  loadSettings();
  connect();
}

// --- the week, the streaks, the settings ---
async function loadWeek() {
  const r = await api('/api/history?days=7');
  const list = $('days');
  list.replaceChildren();
  if (!r.ok) {
    history = null;
    list.append(el('li', 'muted', r.json.error));
  } else {
    history = r.json.days || [];
    for (const day of history.slice().reverse()) list.append(dayItem(day));
    if (!history.length) list.append(el('li', 'muted', 'No sessions in the last 7 days'));
  }
  renderLabels(r.ok ? r.json.week_by_label || [] : null);
  renderToday();
  const img = $('stats');
  const probe = await fetch('/api/stats.svg', { method: 'HEAD', cache: 'no-store' }).catch(() => null);
  if (probe && probe.ok) {
    img.src = `/api/stats.svg?at=${Date.now()}`;
    img.hidden = false;
    $('stats-error').hidden = true;
  } else {
    img.hidden = true;
    $('stats-error').hidden = false;
    $('stats-error').textContent = probe ? `/api/stats.svg answered HTTP ${probe.status}` : 'not reachable';
  }
}

// The week by label as the desk summed it (each row's name, sessions and minutes, in its
// order): only laid out here. A label is text, never markup. null: the history was not read
// (the list above says why).
function renderLabels(rows) {
  const body = $('labels-rows');
  body.replaceChildren();
  for (const row of rows || []) {
    const tr = el('tr', row.label === undefined ? 'muted' : '');
    for (const value of [row.name, row.sessions, row.minutes]) tr.append(el('td', '', String(value ?? '')));
    body.append(tr);
  }
  $('labels').hidden = !body.children.length;
  $('labels-empty').hidden = !rows || body.children.length > 0;
}

function dayItem(day) {
  const li = el('li'), head = el('div', 'head'), name = el('b');
  const date = new Date(`${day.day}T12:00:00`);
  const d = new Date();
  const today = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}` === day.day;
  name.textContent = today ? 'Today'
    : date.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
  head.append(name, el('span', '', `${day.focus || 0} focus · ${shortClock(Math.round((day.focus_ms || 0) / 1000))}`));
  const chips = el('div', 'chips');
  for (const s of day.sessions || []) {
    const ended = String(s.ended || '').slice(11, 16);
    const chip = el('span', `chip ${s.kind || ''} ${s.outcome || ''}`,
      `${ended} ${s.name || s.mode} ${shortClock(Math.round((s.actual_ms || 0) / 1000))}`);
    chip.title = `${s.mode}, ${s.outcome}, ended ${s.ended}`;
    chips.append(chip);
  }
  li.append(head, chips);
  return li;
}

async function loadSettings() {
  const r = await api('/api/settings');
  const box = $('settings');
  box.replaceChildren();
  if (!r.ok) return box.append(el('p', 'muted', r.json.error));
  for (const row of r.json.settings || []) box.append(settingRow(row));
}

function settingRow(row) {
  const div = el('div', 'setting'), label = el('label', '', row.key);
  label.htmlFor = `set-${row.key}`;
  const input = el('input');
  input.id = `set-${row.key}`;
  input.value = row.value;
  input.disabled = !session.paired;
  const save = el('button', '', 'Save'), reset = el('button', '', 'Reset');
  save.hidden = reset.hidden = !session.paired;
  const note = el('small', '', [row.about, row.accepts && `accepts ${row.accepts}`, row.from && `from ${row.from}`].filter(Boolean).join(' · '));
  const send = async (body) => {
    const r = await api('/api/settings', body);
    if (!r.ok) return say(r.json.error);
    const fresh = r.json.setting || r.json;
    if (fresh && fresh.key) {
      div.replaceWith(settingRow(fresh));
      say(`${fresh.key} = ${fresh.value}`);
    } else loadSettings();
  };
  save.onclick = () => send({ key: row.key, value: input.value.trim() });
  reset.onclick = () => send({ key: row.key, reset: true });
  input.onkeydown = (e) => e.key === 'Enter' && save.onclick();
  div.append(label, input, save, reset, note);
  return div;
}

// --- the picker ---
// The dial: each tap adds its step within the desk's range; sent once the taps stop, and the
// desk's state then says what it took.
function step(by) {
  const now = dialed !== null ? dialed : shownSeconds(state.total_ms || 0);
  const least = Math.ceil((state.dial_min_ms || 1000) / 1000), most = Math.floor((state.dial_max_ms || 0) / 1000);
  dialed = Math.max(least, Math.min(most || now + by, now + by));
  render();
  clearTimeout(dialTimer);
  dialTimer = setTimeout(async () => {
    const seconds = dialed;
    await command({ cmd: 'set', mode: state.mode, duration: durationText(seconds) });
    if (dialed === seconds) dialed = null;
    render();
  }, 500);
}

// --- start ---
function init() {
  for (const b of $('dial').querySelectorAll('button')) b.onclick = () => step(Number(b.dataset.step));
  $('start').onclick = () => command({ cmd: 'toggle' });
  $('cancel').onclick = () => command({ cmd: 'cancel' });
  $('extend').onclick = () => command({ cmd: 'extend', by: '5m' });
  $('skip').onclick = () => command({ cmd: 'skip' });
  $('interrupt-internal').onclick = () => command({ cmd: 'interrupt', kind: 'internal' });
  $('interrupt-external').onclick = () => command({ cmd: 'interrupt', kind: 'external' });
  $('label-form').onsubmit = (e) => {
    e.preventDefault();
    command({ cmd: 'label', text: $('label-text').value });
  };
  $('label-clear').onclick = () => command({ cmd: 'label' });
  $('profile').onchange = (e) => command({ cmd: 'profile', name: e.target.value }).then(render);
  $('pair-show').onclick = pairShow;
  $('pair-form').onsubmit = pairSend;
  $('stats').onerror = () => {
    $('stats').hidden = true;
  };
  // A phone that wakes, or a tab brought back: read the state now, and a new stream if the old
  // one went quiet while the page slept.
  const wake = () => {
    if (document.visibilityState !== 'visible') return;
    loadState();
    if (!stream || performance.now() - heard > KEEP_ALIVE_MS) connect();
  };
  document.addEventListener('visibilitychange', wake);
  window.addEventListener('pageshow', (e) => e.persisted && wake());
  window.addEventListener('online', wake);
  setInterval(tick, 250);
  window.addEventListener('hashchange', pairScanned);
  render();
  const scanned = scannedCode();
  loadSession().then(async () => {
    // A scanned code pairs first (which reads the session and the settings and connects).
    if (scanned) await pairWith(scanned);
    if (!stream) {
      connect();
      loadSettings();
    }
    loadWeek();
  });
}

init();
