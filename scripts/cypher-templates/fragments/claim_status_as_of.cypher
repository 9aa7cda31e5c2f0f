// The status record {{node}} had as of $as_of (null: now): its status now when $as_of is
// null or the record never ended; SUPERSEDED when it ended (valid_to) by $as_of; else the
// status it was first given (see operators/README.md). Used where a CASE starts at column
// 16 or 8: the later lines start at column 24, aligned under the first WHEN in the former.
CASE WHEN $as_of IS NULL OR {{node}}.valid_to IS NULL THEN {{node}}.status
                       WHEN {{node}}.valid_to <= $as_of THEN 'SUPERSEDED'
                       ELSE coalesce({{node}}.first_status, {{node}}.status) END
