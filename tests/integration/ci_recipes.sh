#!/usr/bin/env bash
# ci_recipes.sh - the CI recipes of docs/GATE.md (docs/ci/*.yml) work as
# written: a structural check (tests/integration/ci_replay.py check), then
# their shell steps replayed in order (ci_replay.py github|gitlab) against a
# temporary git repository with main and a feature branch: the first pull
# or merge request before any baseline (a skip with a notice), a push to
# main that stores the baseline, the request again (gated, the one comment
# edited in place, nothing written to the store), a fork's request.  The
# mbench runs are real (shortened: --processes 4 --max-time 0.3s through a
# wrapper, for time); gh and curl are local stand-ins for the GitHub and
# GitLab APIs (tests/fixtures/ci).
. "$(dirname "$0")/lib.sh"
REPLAY="$MBENCH_ROOT/tests/integration/ci_replay.py"
CI="$MBENCH_ROOT/docs/ci"
if ! $PY -c 'import yaml' 2>/dev/null; then skip "the CI recipes" "python3-yaml is not installed"; done_testing; fi
if ! command -v jq >/dev/null; then skip "the CI recipes" "jq is not installed"; done_testing; fi
cd "$T_TMP" || exit 1

# ---- structural check ------------------------------------------------------
expect_exit "the three recipes pass the structural check" 0 $PY "$REPLAY" check "$CI/github-workflow.yml" "$CI/github-comment.yml" "$CI/gitlab-ci.yml"
contains "all three are checked" "$LAST_OUT" "checked 3 files: 0 errors"
sed -e 's/policy: pull$/policy: fetch/' -e 's/  extends: .mbench$/  extends: .mbenc/' "$CI/gitlab-ci.yml" >bad-gitlab.yml
sed -e 's/steps.gate.outputs.code != .0./steps.gates.outputs.code != '"'0'"'/' -e 's/actions\/cache\/save@v4/actions\/cache\/save/' \
    -e 's/^  pull_request:$/  pull_requests:/' "$CI/github-workflow.yml" >bad-github.yml
sed -e 's/workflows: \[mbench\]/workflows: [mbnch]/' "$CI/github-comment.yml" >bad-comment.yml
expect_exit "the check finds planted mistakes" 1 $PY "$REPLAY" check bad-github.yml bad-comment.yml bad-gitlab.yml
for want in "cache policy 'fetch'" "extends '.mbenc'" "not an earlier step id" "is not pinned" "unknown event 'pull_requests'" "names 'mbnch'"; do
    contains "it reports: $want" "$LAST_OUT" "$want"
done

for f in github-workflow.yml github-comment.yml gitlab-ci.yml; do
    inline=$(awk -v b="<!-- begin docs/ci/$f -->" -v e="<!-- end docs/ci/$f -->" \
        '$0 == b {p = 1; next} $0 == e {p = 0} p && !/^```/' "$MBENCH_ROOT/docs/GATE.md")
    [ "$inline" = "$(cat "$CI/$f")" ] && ok "docs/GATE.md shows docs/ci/$f as it is" || notok "docs/GATE.md shows docs/ci/$f as it is" "$(diff <(echo "$inline") "$CI/$f" | head -5)"
done

# ---- a project with main and a feature branch --------------------------------
G() { git -C origin -c user.email=t@t -c user.name=t "$@"; }
mkdir origin && git -C origin init -q -b main
cp "$MBENCH_ROOT/models/digits_fp32.onnx" origin/model.onnx
G add model.onnx && G commit -q -m "the model"
G checkout -q -b feature && echo "a change" >origin/NOTES && G add NOTES && G commit -q -m "a change"
G checkout -q -b fork-feature && echo "from a fork" >>origin/NOTES && G commit -q -am "a fork's change"
G checkout -q main
feature_sha=$(git -C origin rev-parse feature)
fork_sha=$(git -C origin rev-parse fork-feature)

# mbench first in PATH, its runs shortened; then the API stand-ins.
mkdir bin
cat >bin/mbench <<EOF
#!/bin/sh
if [ "\$1" = run ]; then shift; exec "$MBENCH" run --processes 4 --min-time 0 --max-time 0.3s "\$@"; fi
exec "$MBENCH" "\$@"
EOF
chmod +x bin/mbench
export PATH="$T_TMP/bin:$MBENCH_ROOT/tests/fixtures/ci:$PATH"
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_HEAD_REF GITHUB_BASE_REF GITHUB_REF_NAME CI_COMMIT_REF_NAME CI_COMMIT_BRANCH

# ---- GitHub Actions ---------------------------------------------------------------
GS="$T_TMP/gh-state"; mkdir "$GS"
export CI_FAKE_STATE="$GS" CI_FAKE_READONLY_TOKEN=ro-token
echo '{"comments": [], "pulls": {"7": {"head": {"sha": "'"$feature_sha"'"}}, "8": {"head": {"sha": "'"$fork_sha"'"}}}, "next": 1}' >"$GS/github.json"
gh_ctx() { # run_id ref json-of-github
    printf '{"state": "%s", "repo": "%s", "ref": "%s", "run_id": %s, "github": %s}\n' "$GS" "$T_TMP/origin" "$2" "$1" "$3" >"$GS/ctx-$1.json"
    echo "$GS/ctx-$1.json"
}
pr_ctx() { # run_id branch number token
    gh_ctx "$1" "$2" '{"event_name": "pull_request", "base_ref": "main", "head_ref": "'"$2"'", "ref_name": "'"$3"'/merge", "repository": "o/r", "token": "'"$4"'", "event": {"pull_request": {"number": '"$3"'}}}'
}
comment_ctx() { # run_id of the comment run, run_id of the bench run, head sha
    gh_ctx "$1" main '{"event_name": "workflow_run", "repository": "o/r", "token": "rw-token", "event": {"workflow_run": {"id": '"$2"', "event": "pull_request", "head_sha": "'"$3"'"}}}'
}
comments() { jq -r --arg pr "$1" '[.comments[] | select(.pr == $pr)] | length' "$GS/github.json"; }
body() { jq -r --arg pr "$1" '[.comments[] | select(.pr == $pr)][0].body' "$GS/github.json"; }
# gate_rc ARTIFACT_DIR: what the job's last step makes of the gate's exit code
gate_rc() { jq -r '.exit_code' "$1/verdict.json" 2>/dev/null; }

expect_exit "GitHub: the first pull request, before any baseline, passes" 0 $PY "$REPLAY" github "$CI/github-workflow.yml" "$(pr_ctx 101 feature 7 ro-token)"
contains "it says why the gate is skipped in a notice" "$LAST_OUT" "::notice title=mbench gate skipped::no baseline of model.onnx on main yet"
contains "the store is not saved from a pull request" "$LAST_OUT" "[replay] skip: Save the results store"
[ -f "$GS/artifacts/101/mbench-report/report.html" ] && ok "the HTML report is uploaded as an artifact" || notok "the HTML report is uploaded as an artifact" "$(ls -R "$GS/artifacts/101")"
expect_exit "GitHub: the comment workflow posts the skip" 0 $PY "$REPLAY" github "$CI/github-comment.yml" "$(comment_ctx 102 101 "$feature_sha")"
[ "$(comments 7)" = 1 ] && ok "one comment on the pull request" || notok "one comment on the pull request" "$(cat "$GS/github.json")"
contains "the comment says there is no baseline yet" "$(body 7)" "no baseline of model.onnx on main yet"

expect_exit "GitHub: a push to main stores the baseline" 0 $PY "$REPLAY" github "$CI/github-workflow.yml" "$(gh_ctx 103 main '{"event_name": "push", "ref_name": "main", "repository": "o/r", "token": "rw-token"}')"
contains "and saves the store in the cache" "$LAST_OUT" "[replay] cache: saved mbench-db-103"
docs=$(sqlite3 "$GS/cache/mbench-db-103/mbench.db" 'SELECT count(*) FROM documents' 2>&1)
[ "$docs" = 1 ] && ok "the cached store holds main's results" || notok "the cached store holds main's results" "$docs"

$PY "$REPLAY" github "$CI/github-workflow.yml" "$(pr_ctx 104 feature 7 ro-token)" >pr2.out 2>&1; rc=$?
grc=$(gate_rc "$GS/artifacts/104/mbench-verdict")
case "$grc" in 0|4) want=0 ;; *) want=1 ;; esac
[ -n "$grc" ] && [ "$rc" = "$want" ] && ok "GitHub: the pull request is gated against main (gate exit $grc, job exit $rc)" || notok "GitHub: the pull request is gated against main" "gate exit '$grc', job exit $rc" "$(tail -20 pr2.out)"
contains "it restored main's store" "$(cat pr2.out)" "[replay] cache: restored mbench-db-103"
if grep -q "::notice" pr2.out; then notok "no skip notice once there is a baseline" "$(grep notice pr2.out)"; else ok "no skip notice once there is a baseline"; fi
expect_exit "GitHub: the comment workflow runs again" 0 $PY "$REPLAY" github "$CI/github-comment.yml" "$(comment_ctx 105 104 "$feature_sha")"
[ "$(comments 7)" = 1 ] && ok "still one comment: edited in place" || notok "still one comment: edited in place" "$(cat "$GS/github.json")"
contains "the comment now holds the gate's verdict" "$(body 7)" "| model.onnx"
contains "it was a PATCH of the first comment" "$(cat "$GS/gh.log")" "api --method PATCH repos/o/r/issues/comments/1"
[ "$(ls "$GS/cache")" = mbench-db-103 ] && ok "pull requests saved no cache" || notok "pull requests saved no cache" "$(ls "$GS/cache")"
docs=$(sqlite3 "$GS/cache/mbench-db-103/mbench.db" 'SELECT count(*) FROM documents' 2>&1)
[ "$docs" = 1 ] && ok "the gate wrote nothing to the store (--no-store)" || notok "the gate wrote nothing to the store (--no-store)" "$docs"

: >"$GS/gh.log"
$PY "$REPLAY" github "$CI/github-workflow.yml" "$(pr_ctx 106 fork-feature 8 ro-token)" >fork.out 2>&1
grc=$(gate_rc "$GS/artifacts/106/mbench-verdict")
[ -n "$grc" ] && ok "GitHub: a fork's pull request is gated with a read-only token" || notok "GitHub: a fork's pull request is gated with a read-only token" "$(tail -20 fork.out)"
[ ! -s "$GS/gh.log" ] && ok "the pull request's own workflow calls no API" || notok "the pull request's own workflow calls no API" "$(cat "$GS/gh.log")"
expect_exit "GitHub: the comment workflow comments on the fork's pull request" 0 $PY "$REPLAY" github "$CI/github-comment.yml" "$(comment_ctx 107 106 "$fork_sha")"
[ "$(comments 8)" = 1 ] && ok "one comment on the fork's pull request" || notok "one comment on the fork's pull request" "$(cat "$GS/github.json")"
expect_exit "GitHub: a verdict whose pull request is at another commit is not posted" 0 $PY "$REPLAY" github "$CI/github-comment.yml" "$(comment_ctx 108 106 "$feature_sha")"
contains "it warns instead" "$LAST_OUT" "is not at $feature_sha: no comment"
[ "$(comments 8)" = 1 ] && ok "and nothing was posted" || notok "and nothing was posted" "$(cat "$GS/github.json")"

# ---- GitLab CI -----------------------------------------------------------------------
LS="$T_TMP/gl-state"; mkdir "$LS"
export CI_FAKE_STATE="$LS" CI_FAKE_GITLAB_TOKEN=glpat-test
gl_ctx() { # pipeline_id ref protected extra-variables-json
    printf '{"state": "%s", "repo": "%s", "ref": "%s", "pipeline_id": %s, "protected": %s, "variables": %s}\n' \
        "$LS" "$T_TMP/origin" "$2" "$1" "$3" "$4" >"$LS/ctx-$1.json"
    echo "$LS/ctx-$1.json"
}
COMMON='"CI_DEFAULT_BRANCH": "main", "CI_PROJECT_ID": "1", "CI_API_V4_URL": "https://gitlab.example/api/v4"'
mr_ctx() { # pipeline_id branch token
    gl_ctx "$1" "$2" false '{'"$COMMON"', "CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "3", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_COMMIT_REF_NAME": "'"$2"'"'"${3:+, \"MBENCH_BOT_TOKEN\": \"$3\"}"'}'
}
notes() { jq -r '.notes | length' "$LS/gitlab.json" 2>/dev/null || echo 0; }
note() { jq -r '.notes[0].body' "$LS/gitlab.json"; }

expect_exit "GitLab: the first merge request, before any baseline, passes" 0 $PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(mr_ctx 201 feature glpat-test)"
contains "only the gate job runs" "$LAST_OUT" "[replay] job mbench-store: not in this pipeline"
contains "it says why the gate is skipped" "$LAST_OUT" "mbench: no baseline of model.onnx on main yet"
[ "$(notes)" = 1 ] && ok "one note on the merge request" || notok "one note on the merge request" "$(cat "$LS/gitlab.json" 2>&1)"
contains "the note says there is no baseline yet" "$(note)" "no baseline of model.onnx on main yet"

expect_exit "GitLab: a pipeline of main stores the baseline" 0 $PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(gl_ctx 202 main true '{'"$COMMON"', "CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main"}')"
contains "and saves the one shared cache (unprotect)" "$LAST_OUT" "[replay] cache: saved mbench-db"
[ -f "$LS/artifacts/202-mbench-store/artifacts/report.html" ] && ok "the HTML report is an artifact" || notok "the HTML report is an artifact" "$(ls -R "$LS/artifacts")"

$PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(mr_ctx 203 feature glpat-test)" >mr2.out 2>&1; rc=$?
grc=$(gate_rc "$LS/artifacts/203-mbench-gate/artifacts")
case "$grc" in 0|4) want=0 ;; *) want=1 ;; esac
[ -n "$grc" ] && [ "$rc" = "$want" ] && ok "GitLab: the merge request (unprotected) is gated against main (gate exit $grc, job exit $rc)" || notok "GitLab: the merge request is gated against main" "gate exit '$grc', job exit $rc" "$(tail -20 mr2.out)"
contains "it restored main's store from the shared cache" "$(cat mr2.out)" "[replay] cache: restored mbench-db"
[ "$(notes)" = 1 ] && ok "still one note: edited in place" || notok "still one note: edited in place" "$(cat "$LS/gitlab.json")"
contains "the note now holds the gate's verdict" "$(note)" "| model.onnx"
contains "it was a PUT of the first note" "$(cat "$LS/curl.log")" "--request PUT"
cat "$LS/cache.log" >cache.log
[ "$(grep -c . cache.log)" = 1 ] && contains "only main's job saved the cache" "$(cat cache.log)" "by mbench-store" || notok "only main's job saved the cache" "$(cat cache.log)"
docs=$(sqlite3 "$LS/cache/mbench-db/mbench.db" 'SELECT count(*) FROM documents' 2>&1)
[ "$docs" = 1 ] && ok "the merge request wrote nothing to the store" || notok "the merge request wrote nothing to the store" "$docs"

: >"$LS/curl.log"
$PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(mr_ctx 204 fork-feature "")" >mr3.out 2>&1
contains "GitLab: a fork's merge request (no token) says where the verdict is" "$(cat mr3.out)" "the verdict is in the artifacts only"
[ ! -s "$LS/curl.log" ] && ok "and calls no API" || notok "and calls no API" "$(cat "$LS/curl.log")"
[ -f "$LS/artifacts/204-mbench-gate/artifacts/verdict.md" ] && ok "its verdict is an artifact" || notok "its verdict is an artifact" "$(ls -R "$LS/artifacts")"
done_testing
