// The fields every search operator returns of a record {{node}} after its text and status
// (source turn, conversation, referenced time and turn time as epoch seconds, the turn
// time's UTC offset in seconds, whether it is consolidated, quote, confidence), inside a map projection `{{node}} {…}` whose later
// lines start at column 11.
.turn_id, .source_id, .conversation_id, .idx,
          time_start_s: {{node}}.time_start.epochSeconds, time_end_s: {{node}}.time_end.epochSeconds,
          .time_text, at_s: {{node}}.at.epochSeconds, at_off: {{node}}.at.offsetSeconds,
          consolidated: coalesce({{node}}.consolidated, false),
          .quote, .confidence
