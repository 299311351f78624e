// Lessons and the embed mode. A lesson is data: one JSON file in
// lessons/, listed in lessons/index.json (tests/playground/lessons.rs fails when a file is missing from the
// index, and runs every preset through the parser the page uses). Picking a lesson shows its text
// and puts its preset in the URL hash, which the page then restores like any link; Play runs it.
// `?lesson=<id>` opens a lesson directly; `?embed&lesson=<id>` shows the plots (the lesson's
// `plots` first, when it names them), the controls the lesson names, the guarantee, the readout
// and the question, for an iframe in lecture notes (the Share fold gives its link and snippet:
// www/panels/share.js).
//
// A lesson may ask for a prediction before Play (its `predict`: a number within a tolerance, or
// one of a few choices). When the run has released, the page hands the answer, the run's settings
// and what every lane released to Rust (`predictionVerdict`, src/lesson.rs), which measures the
// quantity on that run (or computes it for its settings) and says whether the prediction held, and
// why. Every lesson file is read through Rust's reader (`lessonCheck`), so a broken one is named
// beside the menu with its field.

const $ = (id) => document.getElementById(id);
// The static build (scripts/dist.mjs) renames the lessons by their content and lists the new
// names in the index's `files` (lesson id → file name); here each lesson is `<id>.json`.
const INDEX = new URL('../../lessons/index.json', import.meta.url);

/** The URL's query: `lesson` (an id) and `embed` (a flag). */
function query() {
  const params = new URLSearchParams(location.search);
  return { id: params.get('lesson'), embed: params.has('embed'), params };
}

/** Fetches a JSON file of lessons/, with the file named in the error. */
async function fetchJson(name) {
  const response = await fetch(new URL(name, INDEX));
  if (!response.ok) throw new Error(`lessons/${name}: ${response.status} ${response.statusText}`);
  try {
    return await response.json();
  } catch (e) {
    throw new Error(`lessons/${name} is not valid JSON (${e.message})`);
  }
}

/** The text of a file of lessons/, with the file named in the error. */
async function fetchText(name) {
  const response = await fetch(new URL(name, INDEX));
  if (!response.ok) throw new Error(`lessons/${name}: ${response.status} ${response.statusText}`);
  return response.text();
}

/**
 * Every lesson of the index, in its order, each read by Rust's reader (`check`, the wasm's
 * lessonCheck) with its text kept for the prediction's check. A file Rust refuses is left out,
 * and its error returned in `broken`.
 */
async function loadLessons(check) {
  const index = await fetchJson(INDEX.pathname.split('/').pop());
  const texts = await Promise.all(index.lessons.map((id) => fetchText(index.files?.[id] ?? `${id}.json`)));
  const lessons = [];
  const broken = [];
  texts.forEach((text, i) => {
    try {
      // Rust's reader checks it; the page shows the file as written (its preset's key order is
      // the link's).
      check(text);
      lessons.push({ ...JSON.parse(text), text });
    } catch (e) {
      broken.push(`lessons/${index.lessons[i]}.json: ${e?.message ?? String(e)}`);
    }
  });
  return { lessons, broken };
}

/** The hash a lesson's preset gives, written as the page writes its own links. */
function presetHash(lesson) {
  return `#${encodeURIComponent(JSON.stringify(lesson.preset))}`;
}

/** The URL of the page at `lesson` (keeping `embed` if it is on), with its preset in the hash. */
function lessonUrl(lesson, params) {
  const next = new URLSearchParams(params);
  next.set('lesson', lesson.id);
  // `embed` is a bare flag: URLSearchParams would write it "embed=".
  const search = next.toString().replace(/(^|&)embed=(&|$)/, '$1embed$2');
  return `${location.pathname}?${search}${presetHash(lesson)}`;
}

/** A labelled paragraph of the lesson ("What to watch", "Try next"). */
function labelled(label, text, className) {
  const p = Object.assign(document.createElement('p'), { className });
  p.append(Object.assign(document.createElement('strong'), { textContent: `${label}: ` }), text);
  return p;
}

/** Shows a lesson's text in the Lessons panel. */
function show(lesson) {
  const body = $('lesson-body');
  const question = questionOf(lesson);
  body.replaceChildren(
    Object.assign(document.createElement('h2'), { id: 'lesson-title', textContent: lesson.title }),
    ...lesson.paragraphs.map((text) => Object.assign(document.createElement('p'), { textContent: text })),
    ...(lesson.predict ? [predictionOf(lesson.predict)] : []),
    labelled('What to watch', lesson.watch, 'lesson-watch'),
    question,
    labelled('Try next', lesson.try_next, 'lesson-next'),
  );
  body.dataset.lesson = lesson.id;
  body.hidden = false;
  $('lesson-reload').hidden = false;
  $('lesson').value = lesson.id;
}

/**
 * The prediction box: the prompt, a number field or the choices as radio buttons, a Check
 * button, the error beside the answer and the verdict.
 */
function predictionOf(predict) {
  const box = Object.assign(document.createElement('fieldset'), { id: 'lesson-predict', className: 'lesson-predict' });
  box.append(Object.assign(document.createElement('legend'), { textContent: 'Predict before Play' }));
  box.append(Object.assign(document.createElement('p'), { id: 'lesson-prompt', textContent: predict.prompt }));
  if (predict.within) {
    const field = Object.assign(document.createElement('div'), { className: 'field' });
    field.append(
      Object.assign(document.createElement('label'), { htmlFor: 'lesson-prediction', textContent: 'your prediction' }),
      Object.assign(document.createElement('input'), { id: 'lesson-prediction', type: 'text', inputMode: 'decimal', autocomplete: 'off' }),
    );
    field.querySelector('input').setAttribute('aria-describedby', 'lesson-prediction-error');
    box.append(field);
  } else {
    const group = Object.assign(document.createElement('div'), { id: 'lesson-prediction', className: 'checks lesson-choices' });
    group.setAttribute('role', 'radiogroup');
    group.setAttribute('aria-label', 'your prediction');
    predict.choices.forEach((choice, i) => {
      const label = Object.assign(document.createElement('label'), { className: 'check' });
      label.append(Object.assign(document.createElement('input'), { type: 'radio', name: 'lesson-prediction', value: String(i) }), ` ${choice.label}`);
      group.append(label);
    });
    box.append(group);
  }
  box.append(
    Object.assign(document.createElement('p'), { className: 'error', id: 'lesson-prediction-error', role: 'alert' }),
    Object.assign(document.createElement('button'), { type: 'button', id: 'lesson-check', textContent: 'Check my prediction' }),
    Object.assign(document.createElement('p'), { id: 'lesson-verdict', className: 'lesson-verdict' }),
  );
  box.querySelector('#lesson-verdict').setAttribute('aria-live', 'polite');
  box.querySelector('#lesson-prediction-error').setAttribute('role', 'alert');
  return box;
}

/** The typed number or the picked choice's index ('' when none). */
function answerGiven() {
  const typed = document.querySelector('input#lesson-prediction');
  if (typed) return typed.value;
  return document.querySelector('input[name="lesson-prediction"]:checked')?.value ?? '';
}

/** The lesson's question, its answer folded under it (the Lessons panel's, and embed mode's). */
function questionOf(lesson) {
  const question = document.createElement('details');
  question.className = 'lesson-question';
  question.append(
    Object.assign(document.createElement('summary'), { textContent: `Question: ${lesson.question}` }),
    Object.assign(document.createElement('p'), { textContent: lesson.answer }),
  );
  return question;
}

/**
 * Embed mode: a compact page for a 900 × 700 frame. Above the plots, on the
 * left the lesson's title and question, the controls it names and the run buttons; on the right
 * the guarantee (its headline and noise scale: what a lesson asks students to watch) and the key
 * readout numbers. The main plots follow side by side (style.css). The parts are moved, not
 * copied, so the page's own listeners keep working; everything else is hidden by the `embed`
 * class (style.css).
 */
function embed(lesson) {
  document.documentElement.classList.add('embed');
  const keep = $('embed-controls');
  if (lesson) keep.append(Object.assign(document.createElement('h2'), { textContent: lesson.title }));
  for (const id of lesson?.controls ?? ['epsilon']) {
    const control = $(id);
    if (control) keep.append(control.closest('.field') ?? control);
  }
  keep.append(document.querySelector('.controls .buttons[aria-label="Run"]'), $('play-blocked'), $('progress'), $('run-error'));
  if (lesson) keep.append(Object.assign(questionOf(lesson), { id: 'embed-question' }));
  const facts = Object.assign(document.createElement('div'), { id: 'embed-facts' });
  facts.append($('guarantee'), $('readout'));
  keep.after(facts);
  keep.hidden = false;
  // The lesson's main plots (its `plots`, canvas ids) first, side by side in the frame; without
  // them, the page's first two (the excess risk and the parameter view).
  const main = (lesson?.plots ?? []).map((id) => $(id)?.closest('figure')).filter(Boolean);
  $('plots').querySelector(':scope > figure')?.before(...main);
  for (const figure of main) figure.dataset.main = '';
}

/**
 * Mounts the Lessons menu (`root`, its section; www/page/mount.js): builds it and, for
 * `?lesson=<id>`, shows that lesson and (when the URL holds no settings of its own) puts its
 * preset in the hash before the page reads it; `ready` settles once it has. `restore()` is the
 * page's "a link was opened": it reads the hash and prepares the run. Never throws: a missing or
 * broken lesson file is said beside the menu, and the page works without lessons.
 */
export function mount(root, { restore, wasm, releasedRun }) {
  const state = { lesson: null };
  return {
    ready: setup(restore, wasm, releasedRun, state),
    update(change) {
      if (!state.lesson?.predict || !$('lesson-verdict')) return;
      // A new run is being prepared: the verdict was about the one before it.
      if (change === 'settings') setVerdict(null);
      if (change === 'released') judge(wasm, releasedRun, state.lesson, true);
    },
  };
}

/** The quantities a verdict measures on the run's raw data (the others follow from its settings). */
const MEASURED = ['mean_excess', 'lowest_excess'];

/**
 * Shows a verdict ({ held, text }), or clears it (null), or says `note`. A verdict that quotes
 * an excess measured on the raw data says so, as every other such number on the page does.
 */
function setVerdict(verdict, note = '', quantity = null) {
  const el = $('lesson-verdict');
  if (!el) return;
  el.textContent = verdict ? verdict.text : note;
  if (verdict && MEASURED.includes(quantity)) {
    el.append(' ', Object.assign(document.createElement('span'), { className: 'np', textContent: 'measured on the raw data (not private)' }));
  }
  el.dataset.held = verdict ? String(verdict.held) : '';
  el.className = `lesson-verdict${verdict ? (verdict.held ? ' held' : ' missed') : ''}`;
}

/**
 * Judges the answer against the released run (Rust's predictionVerdict). `onRelease`: called
 * as the run releases, when an empty answer is a reminder rather than an error.
 */
function judge(wasm, releasedRun, lesson, onRelease = false) {
  $('lesson-prediction-error').textContent = '';
  const answer = answerGiven();
  const done = releasedRun();
  if (!done) {
    setVerdict(null, 'Press Play: the prediction is checked against the run when it releases.');
    return;
  }
  if (answer.trim() === '') {
    if (onRelease) setVerdict(null, 'The run has released: make your prediction above and press “Check my prediction”.');
    else $('lesson-prediction-error').textContent = lesson.predict.within
      ? 'your prediction: enter a number, such as 0.02 or 2e-2.'
      : 'your prediction: pick one of the choices.';
    return;
  }
  try {
    setVerdict(wasm.predictionVerdict(lesson.text, done.config, answer, done.released), '', lesson.predict.quantity);
  } catch (e) {
    setVerdict(null);
    $('lesson-prediction-error').textContent = e?.message ?? String(e);
  }
}

async function setup(restore, wasm, releasedRun, state) {
  const { id, embed: embedded, params } = query();
  const menu = $('lesson');
  const say = (text) => { $('lesson-error').textContent = text; };
  let lessons = [];
  try {
    const loaded = await loadLessons(wasm.lessonCheck);
    lessons = loaded.lessons;
    if (loaded.broken.length) say(`Left out of the menu: ${loaded.broken.join('; ')}`);
  } catch (e) {
    say(`The lessons could not be read: ${e.message}. Reload the page; the playground works without them.`);
  }
  const shown = (lesson) => {
    show(lesson);
    state.lesson = lesson;
    $('lesson-check')?.addEventListener('click', () => judge(wasm, releasedRun, lesson));
  };
  menu.append(...lessons.map((l) => Object.assign(document.createElement('option'), { value: l.id, textContent: l.title })));
  const byId = new Map(lessons.map((l) => [l.id, l]));
  const pick = (lesson) => {
    window.history.replaceState(null, '', lessonUrl(lesson, params));
    shown(lesson);
    restore();
  };
  menu.addEventListener('change', () => {
    const lesson = byId.get(menu.value);
    if (lesson) pick(lesson);
  });
  $('lesson-reload').addEventListener('click', () => {
    const lesson = byId.get(menu.value);
    if (lesson) pick(lesson);
  });
  const lesson = id === null ? null : byId.get(id);
  if (id !== null && !lesson && lessons.length > 0) {
    say(`There is no lesson “${id}”: pick one from the Lessons menu.`);
  }
  if (lesson) {
    shown(lesson);
    const settings = location.hash.replace(/^#/, '');
    if (settings === '') window.history.replaceState(null, '', lessonUrl(lesson, params));
  }
  if (embedded) embed(lesson);
}
