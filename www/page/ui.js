// The page's elements that several modules read or set: the run's controls and its readout.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);
export const ui = {
  epsilon: $('epsilon'),
  epsilonOutput: $('epsilon-output'),
  epsilonTyped: $('epsilon-typed'),
  seed: $('seed'),
  unseeded: $('unseeded'),
  play: $('play'),
  step: $('step'),
  reset: $('reset'),
  cancel: $('cancel'),
  speed: $('speed'),
  progress: $('progress'),
  status: $('status'),
  stepCount: $('step-count'),
  excess: $('excess'),
  release: $('release'),
  caveats: $('caveats'),
  headline: $('guarantee-headline'),
  detail: $('guarantee-detail'),
};
