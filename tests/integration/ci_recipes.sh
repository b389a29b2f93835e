#!/usr/bin/env bash
# ci_recipes.sh - the CI recipes of docs/GATE.md (docs/ci/*.yml) work as
# written: a structural check (tests/integration/ci_replay.py check), then
# their shell steps replayed in order (ci_replay.py github|gitlab) against a
# temporary git repository: a request that adds the model (nothing on the
# target branch to compare with: a skip with a notice), a push to main that
# stores a run for the history, a request that changes something (the
# model compared with main's in one interleaved compare and gated, the one
# comment edited in place), a request whose head is main's commit, a
# request whose model is broken (the failure replaces the comment), and a
# fork's request (GitHub: a read-only token; GitLab: a pipeline in the
# fork's project, with the fork's caches and no token).  The mbench runs
# are real (shortened through a wrapper, for time); gh and curl are local
# stand-ins for the GitHub and GitLab APIs (tests/fixtures/ci).
. "$(dirname "$0")/lib.sh"
REPLAY="$MBENCH_ROOT/tests/integration/ci_replay.py"
CI="$MBENCH_ROOT/docs/ci"
if ! has_modules $PY yaml; then skip "the CI recipes" "python3-yaml is not installed"; done_testing; fi
if ! command -v jq >/dev/null; then skip "the CI recipes" "jq is not installed"; done_testing; fi
cd "$T_TMP" || exit 1

# ---- structural check ------------------------------------------------------
expect_exit "the four recipes pass the structural check" 0 $PY "$REPLAY" check "$CI/github-workflow.yml" "$CI/github-comment.yml" "$CI/github-pages.yml" "$CI/gitlab-ci.yml"
contains "all four are checked" "$LAST_OUT" "checked 4 files: 0 errors"
sed -e 's/policy: pull-push$/policy: fetch/' -e 's/  extends: .mbench$/  extends: .mbenc/' "$CI/gitlab-ci.yml" >bad-gitlab.yml
sed -e 's/steps.gate.outputs.code != .0./steps.gates.outputs.code != '"'0'"'/' -e 's/actions\/cache\/save@v4/actions\/cache\/save/' \
    -e 's/^  pull_request:$/  pull_requests:/' "$CI/github-workflow.yml" >bad-github.yml
sed -e 's/workflows: \[mbench\]/workflows: [mbnch]/' "$CI/github-comment.yml" >bad-comment.yml
expect_exit "the check finds planted mistakes" 1 $PY "$REPLAY" check bad-github.yml bad-comment.yml bad-gitlab.yml
for want in "cache policy 'fetch'" "extends '.mbenc'" "not an earlier step id" "is not pinned" "unknown event 'pull_requests'" "names 'mbnch'"; do
    contains "it reports: $want" "$LAST_OUT" "$want"
done

for f in github-workflow.yml github-comment.yml github-pages.yml gitlab-ci.yml; do
    inline=$(awk -v b="<!-- begin docs/ci/$f -->" -v e="<!-- end docs/ci/$f -->" \
        '$0 == b {p = 1; next} $0 == e {p = 0} p && !/^```/' "$MBENCH_ROOT/docs/GATE.md")
    [ "$inline" = "$(cat "$CI/$f")" ] && ok "docs/GATE.md shows docs/ci/$f as it is" || notok "docs/GATE.md shows docs/ci/$f as it is" "$(diff <(echo "$inline") "$CI/$f" | head -5)"
done


# ---- a project: main without the model, then with it ------------------------
G() { git -C origin -c user.email=t@t -c user.name=t "$@"; }
mkdir origin && git -C origin init -q -b main
echo "a project" >origin/README && G add README && G commit -q -m "start"
G branch before-model
G checkout -q -b add-model && cp "$MBENCH_ROOT/models/digits_fp32.onnx" origin/model.onnx
G add model.onnx && G commit -q -m "the model"
G checkout -q main && G merge -q --ff-only add-model
G checkout -q -b feature && echo "a change" >origin/NOTES && G add NOTES && G commit -q -m "a change"
G checkout -q -b broken && head -c 1000 "$MBENCH_ROOT/models/digits_fp32.onnx" >origin/model.onnx && G commit -q -am "a broken model"
G checkout -q main && G branch same main
main_sha=$(git -C origin rev-parse main)
feature_sha=$(git -C origin rev-parse feature)
broken_sha=$(git -C origin rev-parse broken)
add_sha=$(git -C origin rev-parse add-model)
# A fork: a repository of its own, with a branch of its own.
git clone -q origin fork
FG() { git -C fork -c user.email=f@f -c user.name=f "$@"; }
FG checkout -q -b fork-feature && echo "from a fork" >>fork/NOTES && FG add NOTES && FG commit -q -m "a fork's change"
fork_sha=$(git -C fork rev-parse fork-feature)

# mbench first in PATH, its runs and compares shortened; then the API
# stand-ins.
mkdir bin
printf '#!/bin/sh\ncase "$1" in\nrun|compare) c=$1; shift; exec "%s" "$c" --processes 3 --min-time 0 --max-time 0.1s "$@" ;;\nesac\nexec "%s" "$@"\n' "$MBENCH" "$MBENCH" >bin/mbench
chmod +x bin/mbench
export PATH="$T_TMP/bin:$MBENCH_ROOT/tests/fixtures/ci:$PATH"
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_HEAD_REF GITHUB_BASE_REF GITHUB_REF_NAME CI_COMMIT_REF_NAME CI_COMMIT_BRANCH

# gated NAME OUT RC ARTIFACTS: the request was compared and gated (the
# uploaded verdict holds the gate's exit code), and the job's outcome
# follows it (0 and 4 pass, the others fail).
gated() {
    local grc want
    grc=$(jq -r '.exit_code' "$4/verdict.json" 2>/dev/null)
    case "$grc" in 0|4) want=0 ;; *) want=1 ;; esac
    if [ -n "$grc" ] && [ "$3" = "$want" ]; then ok "$1 (gate exit $grc, job exit $3)"; else notok "$1" "gate exit '$grc', job exit $3" "$(tail -20 "$2")"; fi
}

# ---- GitHub Actions ---------------------------------------------------------------
GS="$T_TMP/gh-state"; mkdir "$GS"
export CI_FAKE_STATE="$GS" CI_FAKE_READONLY_TOKEN=ro-token
pulls='{"6": {"head": {"sha": "'"$add_sha"'"}}, "7": {"head": {"sha": "'"$feature_sha"'"}}, "8": {"head": {"sha": "'"$fork_sha"'"}}, "9": {"head": {"sha": "'"$main_sha"'"}}}'
echo '{"comments": [], "pulls": '"$pulls"', "next": 1}' >"$GS/github.json"
gh_ctx() { # run_id ref json-of-github [repo]
    printf '{"state": "%s", "repo": "%s", "ref": "%s", "run_id": %s, "github": %s}\n' "$GS" "${4:-$T_TMP/origin}" "$2" "$1" "$3" >"$GS/ctx-$1.json"
    echo "$GS/ctx-$1.json"
}
pr_ctx() { # run_id branch number token [base] [repo]
    gh_ctx "$1" "$2" '{"event_name": "pull_request", "base_ref": "'"${5:-main}"'", "head_ref": "'"$2"'", "ref_name": "'"$3"'/merge", "repository": "o/r", "server_url": "https://github.example", "token": "'"$4"'", "event": {"pull_request": {"number": '"$3"'}}}' "${6:-}"
}
comment_ctx() { # run_id of the comment run, run_id of the bench run, head sha
    gh_ctx "$1" main '{"event_name": "workflow_run", "repository": "o/r", "token": "rw-token", "event": {"workflow_run": {"id": '"$2"', "event": "pull_request", "head_sha": "'"$3"'"}}}'
}
pages_ctx() { # run_id of the pages run, run_id of the bench run, its event
    gh_ctx "$1" main '{"event_name": "workflow_run", "repository": "o/r", "token": "rw-token", "event": {"workflow_run": {"id": '"$2"', "event": "'"$3"'", "conclusion": "success"}}}'
}
comments() { jq -r --arg pr "$1" '[.comments[] | select(.pr == $pr)] | length' "$GS/github.json"; }
body() { jq -r --arg pr "$1" '[.comments[] | select(.pr == $pr)][0].body' "$GS/github.json"; }

expect_exit "GitHub: a pull request that adds the model passes" 0 $PY "$REPLAY" github "$CI/github-workflow.yml" "$(pr_ctx 101 add-model 6 ro-token before-model)"
contains "it says why the gate is skipped in a notice" "$LAST_OUT" "::notice title=mbench gate skipped::model.onnx is not on before-model yet"
contains "a pull request reads no store" "$LAST_OUT" "[replay] skip: Restore the results store"
expect_exit "GitHub: the pages workflow publishes nothing for a pull request" 0 $PY "$REPLAY" github "$CI/github-pages.yml" "$(pages_ctx 121 101 pull_request)"
contains "its job is skipped" "$LAST_OUT" "[replay] job deploy skipped by its if"
expect_exit "GitHub: the comment workflow posts the skip" 0 $PY "$REPLAY" github "$CI/github-comment.yml" "$(comment_ctx 102 101 "$add_sha")"
[ "$(comments 6)" = 1 ] && ok "one comment on the pull request" || notok "one comment on the pull request" "$(cat "$GS/github.json")"
contains "the comment says there is nothing to compare with" "$(body 6)" "model.onnx is not on before-model yet"

expect_exit "GitHub: a push to main stores a run for the history" 0 $PY "$REPLAY" github "$CI/github-workflow.yml" "$(gh_ctx 103 main '{"event_name": "push", "ref_name": "main", "repository": "o/r", "token": "rw-token"}')"
contains "and saves the store in the cache" "$LAST_OUT" "[replay] cache: saved mbench-db-103"
docs=$(sqlite3 "$GS/cache/mbench-db-103/mbench.db" 'SELECT count(*) FROM documents' 2>&1)
[ "$docs" = 1 ] && ok "the cached store holds main's results" || notok "the cached store holds main's results" "$docs"
[ -f "$GS/artifacts/103/mbench-report/history.html" ] && ok "the history page is an artifact" || notok "the history page is an artifact" "$(ls -R "$GS/artifacts/103")"
[ -f "$GS/artifacts/103/mbench-site/index.html" ] && ls "$GS/artifacts/103/mbench-site/s/"*.html >/dev/null 2>&1 &&
    ok "the benchmark site (index and series pages) is an artifact" || notok "the benchmark site is an artifact" "$(ls -R "$GS/artifacts/103" | head)"
expect_exit "GitHub: the pages workflow deploys the site of a push" 0 $PY "$REPLAY" github "$CI/github-pages.yml" "$(pages_ctx 120 103 push)"
contains "it says it deployed" "$LAST_OUT" "pages: deployed"
grep -q 'href="https://github.com/o/r/commit/' "$GS/pages/s/"*.html 2>/dev/null &&
    ok "the published series pages link commits to the repository" || notok "the published series pages link commits to the repository" "$(ls "$GS/pages" 2>&1 | head -3)"

$PY "$REPLAY" github "$CI/github-workflow.yml" "$(pr_ctx 104 feature 7 ro-token)" >pr2.out 2>&1
gated "GitHub: the pull request's model is compared with main's and gated" pr2.out $? "$GS/artifacts/104/mbench-verdict"
contains "paired round by round, in one interleaved compare" "$(jq -r '.paired' "$GS/artifacts/104/mbench-verdict/verdict.json" 2>&1)" "true"
[ -f "$GS/artifacts/104/mbench-report/report.html" ] && ok "the compare's HTML report is uploaded" || notok "the compare's HTML report is uploaded" "$(ls -R "$GS/artifacts/104")"
expect_exit "GitHub: the comment workflow runs again" 0 $PY "$REPLAY" github "$CI/github-comment.yml" "$(comment_ctx 105 104 "$feature_sha")"
[ "$(comments 7)" = 1 ] && ok "one comment on the changed pull request" || notok "one comment on the changed pull request" "$(cat "$GS/github.json")"
contains "the comment holds the gate's verdict" "$(body 7)" "| model.onnx"

$PY "$REPLAY" github "$CI/github-workflow.yml" "$(pr_ctx 109 same 9 ro-token)" >same.out 2>&1
gated "GitHub: a pull request whose head is main's commit is gated, not an error" same.out $? "$GS/artifacts/109/mbench-verdict"

# The pull request gets a broken model: the failure replaces the verdict.
jq --arg s "$broken_sha" '.pulls["7"].head.sha = $s' "$GS/github.json" >"$GS/github.new" && mv "$GS/github.new" "$GS/github.json"
expect_exit "GitHub: a pull request whose benchmark fails fails its job" 1 $PY "$REPLAY" github "$CI/github-workflow.yml" "$(pr_ctx 110 broken 7 ro-token)"
: >"$GS/gh.log"
expect_exit "GitHub: the comment workflow posts the failure" 0 $PY "$REPLAY" github "$CI/github-comment.yml" "$(comment_ctx 111 110 "$broken_sha")"
[ "$(comments 7)" = 1 ] && ok "still one comment: edited in place" || notok "still one comment: edited in place" "$(cat "$GS/github.json")"
contains "it was a PATCH of that comment" "$(cat "$GS/gh.log")" "api --method PATCH repos/o/r/issues/comments/2"
contains "the old verdict is replaced by the failure" "$(body 7)" "the benchmark did not finish"

: >"$GS/gh.log"
$PY "$REPLAY" github "$CI/github-workflow.yml" "$(pr_ctx 106 fork-feature 8 ro-token main "$T_TMP/fork")" >fork.out 2>&1
gated "GitHub: a fork's pull request is gated with a read-only token" fork.out $? "$GS/artifacts/106/mbench-verdict"
[ ! -s "$GS/gh.log" ] && ok "the pull request's own workflow calls no API" || notok "the pull request's own workflow calls no API" "$(cat "$GS/gh.log")"
expect_exit "GitHub: the comment workflow comments on the fork's pull request" 0 $PY "$REPLAY" github "$CI/github-comment.yml" "$(comment_ctx 107 106 "$fork_sha")"
[ "$(comments 8)" = 1 ] && ok "one comment on the fork's pull request" || notok "one comment on the fork's pull request" "$(cat "$GS/github.json")"
expect_exit "GitHub: a verdict whose pull request is at another commit is not posted" 0 $PY "$REPLAY" github "$CI/github-comment.yml" "$(comment_ctx 108 106 "$feature_sha")"
contains "it warns instead" "$LAST_OUT" "is not at $feature_sha: no comment"
[ "$(comments 8)" = 1 ] && ok "and nothing was posted" || notok "and nothing was posted" "$(cat "$GS/github.json")"

# ---- GitLab CI -----------------------------------------------------------------------
LS="$T_TMP/gl-state"; mkdir "$LS"
export CI_FAKE_STATE="$LS" CI_FAKE_GITLAB_TOKEN=glpat-test CI_FAKE_GITLAB_PROJECT=1
gl_ctx() { # pipeline_id ref protected extra-variables-json [project] [repo]
    printf '{"state": "%s", "repo": "%s", "ref": "%s", "pipeline_id": %s, "protected": %s, "project_id": "%s", "variables": %s}\n' \
        "$LS" "${6:-$T_TMP/origin}" "$2" "$1" "$3" "${5:-1}" "$4" >"$LS/ctx-$1.json"
    echo "$LS/ctx-$1.json"
}
COMMON='"CI_DEFAULT_BRANCH": "main", "CI_API_V4_URL": "https://gitlab.example/api/v4"'
mr_ctx() { # pipeline_id branch token [target] [project] [repo]
    local tok=""
    [ -n "$3" ] && tok=', "MBENCH_BOT_TOKEN": "'"$3"'"'
    gl_ctx "$1" "$2" false '{'"$COMMON"', "CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "3", "CI_MERGE_REQUEST_PROJECT_ID": "1", "CI_MERGE_REQUEST_PROJECT_URL": "'"$T_TMP/origin"'", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "'"${4:-main}"'", "CI_COMMIT_REF_NAME": "'"$2"'"'"$tok"'}' "${5:-1}" "${6:-}"
}
notes() { jq -r '.notes | length' "$LS/gitlab.json" 2>/dev/null || echo 0; }
note() { jq -r '.notes[0].body' "$LS/gitlab.json"; }

expect_exit "GitLab: a merge request that adds the model passes" 0 $PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(mr_ctx 201 add-model glpat-test before-model)"
contains "only the gate job runs" "$LAST_OUT" "[replay] job mbench-history: not in this pipeline"
contains "it says why the gate is skipped" "$LAST_OUT" "mbench: model.onnx is not on before-model yet"
[ "$(notes)" = 1 ] && ok "one note on the merge request" || notok "one note on the merge request" "$(cat "$LS/gitlab.json" 2>&1)"
contains "the note says there is nothing to compare with" "$(note)" "model.onnx is not on before-model yet"

expect_exit "GitLab: a pipeline of main stores a run for the history" 0 $PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(gl_ctx 202 main true '{'"$COMMON"', "CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main"}')"
contains "and saves the main project's cache" "$LAST_OUT" "[replay] cache: saved mbench-db-protected"
[ -f "$LS/artifacts/202-mbench-history/artifacts/history.html" ] && ok "the history page is an artifact" || notok "the history page is an artifact" "$(ls -R "$LS/artifacts")"
contains "the pages job runs after it" "$LAST_OUT" "[replay] job pages: success"
[ -f "$LS/artifacts/202-pages/artifacts/public/index.html" ] && ok "GitLab Pages gets the benchmark site as public/" ||
    notok "GitLab Pages gets the benchmark site as public/" "$(ls -R "$LS/artifacts/202-pages" 2>&1 | head)"

$PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(mr_ctx 203 feature glpat-test)" >mr2.out 2>&1
gated "GitLab: the merge request's model is compared with main's and gated" mr2.out $? "$LS/artifacts/203-mbench-gate/artifacts"
[ "$(notes)" = 1 ] && ok "still one note: edited in place" || notok "still one note: edited in place" "$(cat "$LS/gitlab.json")"
contains "the note now holds the gate's verdict" "$(note)" "| model.onnx"
contains "it was a PUT of the first note" "$(cat "$LS/curl.log")" "--request PUT"

$PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(mr_ctx 205 same glpat-test)" >same-gl.out 2>&1
gated "GitLab: a merge request whose head is main's commit is gated, not an error" same-gl.out $? "$LS/artifacts/205-mbench-gate/artifacts"

expect_exit "GitLab: a merge request whose benchmark fails fails its job (exit 3, the compare's)" 3 $PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(mr_ctx 206 broken glpat-test)"
contains "after_script still runs" "$LAST_OUT" "after_script (job status failed)"
[ "$(notes)" = 1 ] && ok "still one note after the failure" || notok "still one note after the failure" "$(cat "$LS/gitlab.json")"
contains "the old verdict is replaced by the failure" "$(note)" "the benchmark did not finish"

# A fork's merge request: the pipeline runs in the fork's project (2), with
# the fork's repository, caches and variables (no token).
printf '%s\n' 'peek:' '  rules:' '    - if: $CI_PIPELINE_SOURCE == "merge_request_event"' \
    '  cache:' '    key: mbench-db' '    paths: [mbench.db]' '    policy: pull' '  script:' \
    '    - if [ -f mbench.db ]; then echo "store found"; else echo "no store in this project"; fi' >fork-cache.yml
expect_exit "GitLab: the replay gives a fork's pipeline the fork's caches" 0 $PY "$REPLAY" gitlab fork-cache.yml "$(mr_ctx 207 fork-feature "" main 2 "$T_TMP/fork")"
contains "so main's store is not there (why the gate fetches the target branch instead)" "$LAST_OUT" "no store in this project"
: >"$LS/curl.log"
$PY "$REPLAY" gitlab "$CI/gitlab-ci.yml" "$(mr_ctx 204 fork-feature "" main 2 "$T_TMP/fork")" >mr3.out 2>&1
gated "GitLab: a fork's merge request is compared with the target project's main and gated" mr3.out $? "$LS/artifacts/204-mbench-gate/artifacts"
contains "without a token it says where the verdict is" "$(cat mr3.out)" "the verdict is in the artifacts only"
[ ! -s "$LS/curl.log" ] && ok "and calls no API" || notok "and calls no API" "$(cat "$LS/curl.log")"
contains "its verdict is an artifact" "$(cat "$LS/artifacts/204-mbench-gate/artifacts/verdict.md" 2>&1)" "| model.onnx"
done_testing
