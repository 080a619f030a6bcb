// The desk's page: what the panel shows, counted here between the desk's updates, and its
// buttons. The state's fields are `pomodoro ctl status --json`'s (docs/control.md); the labels
// and the title follow the panel's rules (PomodoroCore's EngineState: title, startLabel,
// cancelLabel). No framework, no build step: this file is served as it is.
'use strict';

const $ = (id) => document.getElementById(id);
// mode -> [name, kind], as PomodoroCore's Mode.
const MODES = {
  focus: ['Focus', 'focus'], short: ['Short break', 'rest'], long: ['Long break', 'rest'], flow: ['Flow', 'flow'],
  soft: ['Soft', 'egg'], medium: ['Medium', 'egg'], hard: ['Hard', 'egg'],
};
const PICKER = ['focus', 'short', 'long', 'flow', 'soft', 'medium', 'hard'];
// Nothing from the desk (a state, a keep-alive every 15 s) for this long: the stream is dead.
const STALE_MS = 35000;
// The server's keep-alive: a stream quiet for longer when the phone wakes is replaced at once.
const KEEP_ALIVE_MS = 16000;
const SHORTEST = 5, LONGEST = 24 * 3600 - 1;

let state = null; // the desk's last state
let at = 0; // when it came (performance.now())
let heard = 0; // when the stream last said anything (only the stream: a reply to a request says nothing of it)
let online = false;
let session = { paired: false, view: 'open', pairing_locked: false };
let settings = {}; // key -> value text
let stream = null; // the event stream's AbortController
let retries = 0;
let dialed = null; // seconds chosen on the page's dial, not yet sent
let dialTimer = 0;
let history = null;
let streamed = 0; // states the stream has brought
let polling = 0; // while offline: the state asked for every 2 s

// --- time ------------------------------------------------------------------------------------
const two = (v) => String(v).padStart(2, '0');
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
// "25m", "1h30m", "90s", "500ms" -> milliseconds, or null.
function parseDuration(text) {
  const units = { h: 3600000, m: 60000, s: 1000, ms: 1 };
  let ms = 0, rest = String(text || '').trim();
  if (!rest) return null;
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(ms|h|m|s)/.exec(rest);
    if (!m) return null;
    ms += parseFloat(m[1]) * units[m[2]];
    rest = rest.slice(m[0].length);
  }
  return ms;
}
function durationText(sec) {
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  return (h ? h + 'h' : '') + (m ? m + 'm' : '') + (s || (!h && !m) ? s + 's' : '');
}

// --- what the panel shows --------------------------------------------------------------------
const kindOf = (s) => (MODES[s.mode] || [s.mode, 'focus'])[1];
const nameOf = (s) => (MODES[s.mode] || [s.mode])[0];
const hasTimer = (s) => s.phase === 'running' || s.phase === 'paused';
const countsUp = (s) => s.elapsed_ms !== undefined;

// EngineState.title (the desk's own `title` when it sends one).
function title(s) {
  if (s.title) return s.title;
  const kind = kindOf(s);
  if (kind === 'egg') {
    if (s.phase === 'idle') return 'How do you like your eggs?';
    if (s.phase === 'ringing') return "Alright, don't choke on them!";
    return `So you like it ${nameOf(s)} huh?`;
  }
  if (s.phase === 'ringing') return { focus: 'Focus done!', flow: 'Flow done!', rest: 'Break over!' }[kind];
  if (kind === 'focus' && s.cycle) return `${nameOf(s)} ${s.cycle}`;
  return nameOf(s);
}
// EngineState.startLabel: what a press of the start button does now.
const startLabel = (s) => ({ idle: 'Start', running: 'Pause', paused: 'Resume', ringing: 'Stop' })[s.phase] || 'Start';
// EngineState.cancelLabel.
const cancelLabel = (s) => (kindOf(s) === 'flow' ? 'End' : 'Cancel');

// The time as counted now: down from remaining_ms, or up from elapsed_ms in a flow.
function counted(now) {
  const run = state.phase === 'running' ? now - at : 0;
  if (countsUp(state)) return { up: true, ms: state.elapsed_ms + run };
  return { up: false, ms: Math.max(0, (state.remaining_ms || 0) - run) };
}
// Settings.earnedBreak: a flow's length / ratio in whole minutes, none in its first minute,
// at most the long break.
function earned(elapsedMs) {
  if (elapsedMs < 60000) return 0;
  const ratio = Number(settings.flow_break_ratio) || 5;
  const longest = parseDuration(settings.long_break) || 900000;
  const share = Math.round(elapsedMs / ratio / 60000) * 60000;
  return Math.min(longest, Math.max(60000, share));
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
    time.classList.remove('long');
    bar.style.width = '0';
    sub.textContent = online || !heard ? '' : 'The desk cannot be reached';
    return;
  }
  const c = counted(now);
  let sec = c.up ? Math.floor(c.ms / 1000) : Math.ceil(c.ms / 1000);
  if (dialed !== null && state.phase === 'idle') sec = dialed;
  const text = clock(sec);
  if (time.textContent !== text) time.textContent = text;
  time.classList.toggle('long', text.length > 5);
  let fill = 0, note = '';
  if (c.up) {
    const e = state.phase === 'idle' ? 0 : state.phase === 'running' ? earned(c.ms) : state.earned_break_ms || 0;
    const longest = parseDuration(settings.long_break) || 900000;
    fill = e / longest;
    note = state.phase === 'idle' ? 'Counts up until you end it' : `Break ${shortClock(Math.round(e / 1000))} earned`;
  } else if (state.total_ms) {
    fill = state.phase === 'idle' ? 0 : 1 - c.ms / state.total_ms;
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
    s ? `phase-${s.phase} kind-${kindOf(s)}` : 'phase-none', online ? 'live' : heard ? 'offline' : '',
    session.paired ? 'paired' : 'unpaired',
  ].join(' ');
  $('link').textContent = online ? 'live' : heard ? 'offline' : 'connecting';
  document.title = s && online ? `${title(s)} · Pomodoro` : 'Pomodoro';
  $('title').textContent = s && online ? title(s) : 'Pomodoro';
  const icon = !s ? 'tomato' : s.phase === 'paused' ? 'pause' : s.phase === 'ringing' ? 'bell' : kindOf(s) === 'egg' ? 'egg' : 'tomato';
  $('icon').firstElementChild.setAttribute('href', `#i-${icon}`);
  // The buttons: Cancel only while there is a timer, +5 min where a countdown can grow.
  const start = $('start');
  start.textContent = s ? startLabel(s) : 'Start';
  start.disabled = !canAct;
  const cancel = $('cancel');
  cancel.hidden = !s || !hasTimer(s);
  cancel.textContent = s ? cancelLabel(s) : 'Cancel';
  $('extend').hidden = !s || s.phase === 'idle' || countsUp(s);
  $('skip').hidden = !s || s.phase === 'ringing';
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
    for (const b of $('modes').children) b.setAttribute('aria-pressed', String(b.dataset.mode === s.mode));
    $('dial').hidden = countsUp(s);
    const sec = dialed !== null ? dialed : Math.round((s.total_ms || 0) / 1000);
    $('duration').textContent = sec % 60 ? shortClock(sec) : `${sec / 60} min`;
  }
  renderToday();
  tick();
}

function renderToday() {
  const box = $('today');
  let n = state && Number.isInteger(state.today) ? state.today : null;
  if (n === null && history && history.length) {
    const last = history[history.length - 1], d = new Date();
    if (last.day === `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`) n = last.focus || 0;
  }
  const key = String(n);
  if (box.dataset.n === key) return;
  box.dataset.n = key;
  box.replaceChildren();
  if (n === null) return;
  for (let i = 0; i < Math.min(n, 12); i++) box.append(symbol('tomato'));
  const label = document.createElement('span');
  label.textContent = n > 12 ? `+${n - 12} today` : n ? 'today' : 'No tomatoes yet today';
  box.append(label);
}

function symbol(name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  const use = document.createElementNS('http://www.w3.org/2000/svg', 'use');
  use.setAttribute('href', `#i-${name}`);
  svg.setAttribute('aria-hidden', 'true');
  svg.append(use);
  return svg;
}

// --- the desk's state ------------------------------------------------------------------------
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
      streamed++;
      apply(JSON.parse(data.join('\n')));
    } catch (e) {
      say(`The desk sent a state this page cannot read: ${e.message}`);
    }
  } else if (event === 'offline') setOffline(true);
}

// --- requests --------------------------------------------------------------------------------
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
  const before = streamed;
  const r = await api('/api/command', body);
  if (r.ok) {
    say('');
    // The reply's state, unless the stream has spoken since: replies on their own connections
    // may arrive out of order (a set's after the start that followed it), the stream's may not.
    if (r.json.state && (streamed === before || !online)) apply(r.json.state);
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

async function loadState() {
  const r = await api('/api/state');
  if (r.ok) apply(r.json);
  else if (r.status === 503 || r.status === 0) setOffline(true);
}

// --- pairing ---------------------------------------------------------------------------------
async function pairShow() {
  const r = await api('/api/pair', {});
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
  const code = $('pair-code').value.trim();
  const r = await api('/api/pair', { code });
  if (!r.ok) {
    if (r.status === 429) session.pairing_locked = true;
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

// --- the week, the streaks, the settings -----------------------------------------------------
async function loadWeek() {
  const r = await api('/api/history?days=7');
  const list = $('days');
  list.replaceChildren();
  if (!r.ok) {
    history = null;
    list.append(item('muted', r.json.error));
  } else {
    history = r.json.days || [];
    for (const day of history.slice().reverse()) list.append(dayItem(day));
    if (!history.length) list.append(item('muted', 'No sessions in the last 7 days'));
  }
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

function item(cls, text) {
  const li = document.createElement('li');
  li.className = cls;
  li.textContent = text;
  return li;
}

function dayItem(day) {
  const li = document.createElement('li');
  const head = document.createElement('div');
  head.className = 'head';
  const name = document.createElement('b');
  const date = new Date(`${day.day}T12:00:00`);
  const d = new Date();
  const today = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}` === day.day;
  name.textContent = today ? 'Today'
    : date.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
  const sum = document.createElement('span');
  sum.textContent = `${day.focus || 0} focus · ${shortClock(Math.round((day.focus_ms || 0) / 1000))}`;
  head.append(name, sum);
  const chips = document.createElement('div');
  chips.className = 'chips';
  for (const s of day.sessions || []) {
    const chip = document.createElement('span');
    chip.className = `chip ${MODES[s.mode] ? MODES[s.mode][1] : ''} ${s.outcome || ''}`;
    const ended = String(s.ended || '').slice(11, 16);
    chip.textContent = `${ended} ${MODES[s.mode] ? MODES[s.mode][0] : s.mode} ${shortClock(Math.round((s.actual_ms || 0) / 1000))}`;
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
  if (!r.ok) {
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = r.json.error;
    return box.append(p);
  }
  for (const row of r.json.settings || []) {
    settings[row.key] = row.value;
    box.append(settingRow(row));
  }
  tick();
}

function settingRow(row) {
  const div = document.createElement('div');
  div.className = 'setting';
  const label = document.createElement('label');
  label.textContent = row.key;
  label.htmlFor = `set-${row.key}`;
  const input = document.createElement('input');
  input.id = `set-${row.key}`;
  input.value = row.value;
  input.disabled = !session.paired;
  const save = document.createElement('button');
  save.textContent = 'Save';
  const reset = document.createElement('button');
  reset.textContent = 'Reset';
  save.hidden = reset.hidden = !session.paired;
  const note = document.createElement('small');
  note.textContent = [row.about, row.accepts && `accepts ${row.accepts}`, row.from && `from ${row.from}`].filter(Boolean).join(' · ');
  const send = async (body) => {
    const r = await api('/api/settings', body);
    if (!r.ok) return say(r.json.error);
    const fresh = r.json.setting || r.json;
    if (fresh && fresh.key) {
      div.replaceWith(settingRow(fresh));
      settings[fresh.key] = fresh.value;
      say(`${fresh.key} = ${fresh.value}`);
    } else loadSettings();
  };
  save.onclick = () => send({ key: row.key, value: input.value.trim() });
  reset.onclick = () => send({ key: row.key, reset: true });
  input.onkeydown = (e) => e.key === 'Enter' && save.onclick();
  div.append(label, input, save, reset, note);
  return div;
}

// --- the picker ------------------------------------------------------------------------------
// The dial steps as the knob does: a minute, 5 s below one minute; sent once the taps stop.
function step(by) {
  const now = dialed !== null ? dialed : Math.round((state.total_ms || 0) / 1000);
  let next = by > 0 && now < 60 ? now + 5 : by < 0 && now <= 60 ? now - 5 : now + by;
  if (by < 0 && now > 60 && next < 60) next = 60;
  dialed = Math.max(SHORTEST, Math.min(LONGEST, next));
  render();
  clearTimeout(dialTimer);
  dialTimer = setTimeout(async () => {
    const seconds = dialed;
    await command({ cmd: 'set', mode: state.mode, duration: durationText(seconds) });
    if (dialed === seconds) dialed = null;
    render();
  }, 500);
}

// --- start -----------------------------------------------------------------------------------
function init() {
  for (const mode of PICKER) {
    const b = document.createElement('button');
    b.dataset.mode = mode;
    b.textContent = MODES[mode][0].replace(' break', '');
    b.onclick = () => {
      dialed = null;
      command({ cmd: 'set', mode });
    };
    $('modes').append(b);
  }
  for (const b of $('dial').querySelectorAll('button')) b.onclick = () => step(Number(b.dataset.step));
  $('start').onclick = () => command({ cmd: 'toggle' });
  $('cancel').onclick = () => command({ cmd: 'cancel' });
  $('extend').onclick = () => command({ cmd: 'extend', by: '5m' });
  $('skip').onclick = () => command({ cmd: 'skip' });
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
  render();
  loadSession().then(() => {
    connect();
    loadSettings();
    loadWeek();
  });
}

init();
