// The `voice` action (spec 13): the text becomes an Ogg Opus voice note through VoiceSynth (espeak-ng as
// a separate process, see voice.h), delivered where the directive stood.
//
// What the handler promises:
// - The note's file lives as long as the delivery's Payload: it is deleted when the last holder (the
//   channel that sent it, the turn report) lets it go, and on every failure path.
// - Errors come from VoiceSynth with their reason: empty or over-long text, espeak-ng missing
//   (`voice: espeak-ng not found: install espeak-ng`), failing, or too slow.
// - The delivery's sha256 is the note's: the same text twice in one turn is sent once.
// - With a budget (voice_budget.h), text is checked first (empty, too long, NUL: refused uncharged), then
//   charged; over the budget it fails before espeak-ng runs, with the budget's reason:
//   `voice: voice budget: 300 more characters would pass the limit of 2000 per turn (1900 used in this
//   turn)`. The budget is the handler table's, so its per-minute count spans turns.
#pragma once

#include <memory>

#include "sigil/actions/voice.h"
#include "sigil/actions/voice_budget.h"
#include "sigil/exec/handler.h"

namespace sigil::actions {

struct VoiceConfig {
  // Empty: every voice directive is an error "voice: voice notes are not configured".
  std::shared_ptr<const VoiceSynth> synth;
  // Empty: no budget (every note that passes the synthesizer's own checks is spoken).
  std::shared_ptr<VoiceBudget> budget = nullptr;
};

void add_voice_handlers(exec::HandlerTable& table, VoiceConfig config);

}  // namespace sigil::actions
