// Share: the page's link, its embed link (www/panels/lessons.js `?embed`) and an
// <iframe> snippet for a course page or slides, each copied with one click. The link is the page's
// own address: its hash holds the settings (www/page/link.js), its query the lesson.

import { copyText } from '../drawing/export.js';

const $ = (id) => document.getElementById(id);

/** The size the snippet gives the frame: the compact embed layout fits the main plots in it. */
export const FRAME = { width: 900, height: 700 };

/** `href` in embed mode: `?embed` (a bare flag, as lessons.js writes it) before its other parameters. */
export function embedUrl(href) {
  const url = new URL(href);
  const params = new URLSearchParams(url.search);
  params.delete('embed');
  const rest = params.toString();
  url.search = `?embed${rest ? `&${rest}` : ''}`;
  return url.href;
}

const attribute = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** An <iframe> showing `src`, named by `title` for screen readers. */
export function iframeSnippet(src, title) {
  return `<iframe src="${attribute(src)}" width="${FRAME.width}" height="${FRAME.height}" `
    + `title="${attribute(title)}" loading="lazy"></iframe>`;
}

/** What the frame is called: the lesson's title, else the algorithm shown. */
function frameTitle() {
  const lesson = $('lesson-body').hidden ? '' : $('lesson-title')?.textContent ?? '';
  return `dp-playground: ${lesson || $('algorithm-title').textContent}`;
}

/**
 * Mounts the Share fold (`root`; www/page/mount.js). `refusal()` says why no link may be given now
 * (a setting is refused: the address holds the last valid settings, not the controls), else null.
 */
export function mount(root, { refusal }) {
  const say = (text) => { $('share-status').textContent = text; };
  const fill = () => {
    const link = location.href;
    $('share-link').value = link;
    $('share-embed').value = embedUrl(link);
    $('share-iframe').value = iframeSnippet(embedUrl(link), frameTitle());
    say(refusal() ?? '');
  };
  root.addEventListener('toggle', () => { if (root.open) fill(); });
  // A change of setting rewrites the address (www/page/link.js applyConfig) in its own listener: the
  // fields follow once it has.
  const follow = () => { if (root.open) setTimeout(fill); };
  document.addEventListener('change', follow);
  window.addEventListener('hashchange', follow);
  for (const button of root.querySelectorAll('button[data-copy]')) {
    button.addEventListener('click', async () => {
      fill();
      const why = refusal();
      if (why) return;
      const field = $(button.dataset.copy);
      const what = field.labels[0].textContent.split(':')[0];
      if (await copyText(field.value)) {
        say(`Copied the ${what}.`);
      } else {
        field.select();
        say(`The browser refused to copy: the ${what} is selected, copy it with Ctrl+C (⌘C).`);
      }
    });
  }
  return {};
}
