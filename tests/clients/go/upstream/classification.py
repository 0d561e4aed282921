"""Why each upstream Go client test that does not pass fails against cnxsim serve.

CLASSES names the kinds; RULES maps a test (by file and function name, a
regular expression) to its kind and the reason, found by reading the test and
serve's answer (doc/clients/go.md has the table with the evidence). A failure
no rule names is "unclassified": the runner fails on it, so a new failure is
looked at. A hang is a defect whatever a rule says.

The 42 tests that use TLS or authentication (32 of client_impl_test.go: TLS
and https connections, hostname verification, TLS, token, OAuth2 and basic
authentication over both; the 10 of transaction_test.go, whose
createClientWithTC connects over TLS with a TLS identity) are class
"tls-auth" while they are not run: run_upstream.py runs them once the binary
has TLS (issue 44: `cnxsim help serve` names --tls-port; --tls-auth yes|no
decides otherwise), with the suite's standalone.conf on 6651 and 8443 (TLS,
token, basic and TLS authentication, authorization, anonymous role). They
are run by hand or with `ctest -L upstream_go`, not in CI; a failure among
them that no rule below names is "unclassified" until looked at.
"""
import re

CLASSES = {
    "defect": "fidelity defect (serve answers wrongly)",
    "not-modelled": "feature a broker double leaves out (answered not modelled)",
    "tls-auth": "uses TLS or authentication: not run (the binary has no TLS, or --tls-auth no)",
    "environment": "needs what the suite's CI has besides a broker (docker, a second cluster)",
    "client": "the test itself is timing-dependent or checks the client alone",
    "unclassified": "not classified yet",
    "budget": "not run within the time budget",
}

# Tests that run longer than the default per-test bound by design (seconds).
LONG_TESTS = {
    "TestProducerReconnectWhenBacklogQuotaExceed": 150,  # loops 10 x 10 s
}

# (file regex, test regex, class, reason)
RULES = [
    (r"(consumer|consumer_multitopic|consumer_regex|consumer_zero_queue)_test\.go", r"Test\w*GetLastMessageIDs",
     "not-modelled",
     "pulsaradmin Subscriptions().GetMessagesByID: GET …/ledger/{l}/entry/{e} (reading a message by id) is not "
     "served; answered 501 not modelled (404 before this issue's fix)"),
    (r"(consumer|producer)_test\.go", r"Test(Consumer|Producer)Metadata", "defect",
     "GET …/stats leaves out publishers[].metadata and consumers[].metadata (the PRODUCER/SUBSCRIBE metadata): "
     "left, the model's attached producers and consumers do not keep it"),
    (r"consumer_test\.go", r"TestPartitionTopic_ActiveConsumerChanged", "defect",
     "ACTIVE_CONSUMER_CHANGE right after SUBSCRIBE's SUCCESS: the Go client registers its consumer handler only "
     "after SUCCESS (consumer_partition.go grabConn) and drops the notice ('Consumer not found while active "
     "consumer change'); a real broker's notice comes later (activeConsumerFailoverDelayTimeMillis, not modelled). "
     "Left: unconfirmed on a real broker"),
    (r"(consumer|producer|consumer_zero_queue)_test\.go",
     r"Test(ConsumerKeepReconnectingAndThenCallClose|ReconnectConsumer|ReconnectedBrokerSendPermits|"
     r"ProducerKeepReconnectingAndThenCallClose|SendAsyncCouldTimeoutWhileReconnecting)",
     "environment", "starts its own broker container with testcontainers-go ('rootless Docker not found')"),
    (r"producer_test\.go", r"Test(SendTimeout|SendContextExpired)", "not-modelled",
     "sets a namespace backlog quota (producer_request_hold) and expects the send to time out: POST …/backlogQuota "
     "answers 501 not modelled, which the test's makeHTTPCall ignores"),
    (r"producer_test\.go", r"TestProducerReconnectWhenBacklogQuotaExceed", "not-modelled",
     "pulsaradmin SetBacklogQuota answers 501 not modelled (#41); the test then loops 10 x 10 s"),
    (r"producer_test\.go", r"TestBatchDelayMessage", "defect",
     "flaky, same cause as TestProducerWithInterceptors: the consumer receives the second message before the "
     "producer's SendAsync callback has stored its id, because serve dispatches before it sends the SEND_RECEIPT. Left"),
    (r"producer_test\.go", r"TestProducerWithInterceptors", "defect",
     "serve dispatches a message to the consumer before it sends the producer's SEND_RECEIPT (both from "
     "ServerCnx::handleSend); a real broker sends the receipt from the add-complete callback, the dispatcher reads "
     "the entry afterwards. The test counts the producer's acknowledgements once the consumer has all 10. Left"),
    (r"producer_test\.go", r"TestWaitForExclusiveProducer", "defect",
     "WaitForExclusive is refused at once (ProducerFenced) instead of queued until the exclusive producer closes "
     "(known difference, sim/live/known_differences.cc; issue 41 left it undone); the test then calls Send on a "
     "nil producer and the test binary panics"),
    (r"transaction_test\.go", r"TestTxn_\w+", "not-modelled",
     "transactions are not modelled (`cnxsim help serve`: TC_CLIENT_CONNECT, NEW_TXN and the other transaction "
     "commands close the connection with the reason) although the suite's standalone.conf sets "
     "transactionCoordinatorEnabled=true. Reached only once TLS and "
     "authentication run (createClientWithTC connects over TLS with the suite's client certificate)"),
    (r"reader_test\.go", r"TestReaderWithSeekByID", "defect",
     "a reader at the latest message, inclusive: the client's own SEEK at creation closes the consumer "
     "(CLOSE_CONSUMER before SUCCESS, as PersistentSubscription.resetCursor does); the test's Seek right after "
     "reaches serve before the client re-subscribed: MetadataError 'Consumer not found'. Timing against a real "
     "broker unconfirmed. Left"),
]


def classify(file, test, outcome, detail):
    """(class, reason) of a test that did not pass; ("", "") for one that did."""
    if outcome in ("passed", "skipped"):
        return "", ""
    for file_re, test_re, cls, reason in RULES:
        if re.fullmatch(file_re, file) and re.fullmatch(test_re, test):
            if outcome == "hung" and cls != "defect":
                return "defect", f"hung (a hang is a defect; the rule says {cls}: {reason})"
            return cls, reason
    if outcome == "hung":
        return "defect", "hung: no answer within the test timeout"
    return "unclassified", ""
