"""Signed notes as C2SP and Go's golang.org/x/mod/sumdb/note write them (their published vectors), and checkpoints."""
from __future__ import annotations

import pytest

from eventlog import notes
from eventlog.notes import Checkpoint, NoteError

# golang.org/x/mod/sumdb/note's note_test.go: TestNewSigner, TestNewVerifier and TestSign.
GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
GO_NOTE = (GO_TEXT + "\n\u2014 PeterNeumann "
           "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n")
GO_ENOCH_SIG = ("\u2014 EnochRoot "
                "rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n")
# c2sp.org/signed-note's example.
C2SP_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
C2SP_NOTE = ("This is an example message.\n\n\u2014 example.com/foo "
             "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n")


def test_go_signer_key_signs_the_go_vector_byte_for_byte() -> None:
    signer = notes.parse_skey(GO_SKEY)
    assert signer.verifier.vkey == GO_VKEY
    assert signer.sign(GO_TEXT) == GO_NOTE  # Ed25519 is deterministic: the same bytes as Go's Sign
    assert signer.skey == GO_SKEY


def test_a_generated_key_round_trips_through_its_text_forms() -> None:
    for _ in range(20):  # base64 holds '+' often enough: the key's fields are split on the first pluses only
        signer = notes.generate("arbiter.example/x")
        again = notes.parse_skey(signer.skey)
        assert again.verifier == signer.verifier == notes.parse_vkey(signer.verifier.vkey)


def test_the_published_notes_open_with_their_verifier_keys() -> None:
    assert notes.open_note(GO_NOTE, [notes.parse_vkey(GO_VKEY)]).text == GO_TEXT
    assert notes.open_note(C2SP_NOTE, [notes.parse_vkey(C2SP_VKEY)]).text == "This is an example message.\n"
    # an unknown key's signature beside a known one is skipped, as C2SP says
    assert notes.open_note(GO_NOTE + GO_ENOCH_SIG, [notes.parse_vkey(GO_VKEY)]).by.name == "PeterNeumann"


def test_a_changed_text_or_signature_or_unknown_key_does_not_open() -> None:
    verifier = notes.parse_vkey(GO_VKEY)
    with pytest.raises(NoteError, match="does not verify"):
        notes.open_note(GO_NOTE.replace("answer", "Answer"), [verifier])
    with pytest.raises(NoteError, match="does not verify"):
        notes.open_note(GO_NOTE[:60 + len(GO_TEXT)] + "ABCD" + GO_NOTE[64 + len(GO_TEXT):], [verifier])
    with pytest.raises(NoteError, match="no signature by a known key"):
        notes.open_note(GO_NOTE, [notes.parse_vkey(C2SP_VKEY)])
    for bad in (GO_TEXT, GO_TEXT + "\n", GO_NOTE[:-1], "\x01" + GO_NOTE, GO_NOTE + "Unexpected line.\n"):
        with pytest.raises(NoteError):
            notes.open_note(bad, [verifier])


def test_mangled_verifier_keys_are_refused() -> None:
    for bad in (GO_VKEY[:-1], GO_VKEY.replace("c74f", "c75f"), "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq"
                "/LDE4izWy10TW", "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", ""):
        with pytest.raises(NoteError):
            notes.parse_vkey(bad)


def test_a_receipt_is_a_checkpoint_with_its_prev_hash() -> None:
    signer = notes.generate("arbiter.example")
    receipt = Checkpoint(notes.origin("arbiter.example", "g1"), 7, "ab" * 32, "cd" * 32)
    text = notes.checkpoint_text(receipt)
    assert text.splitlines()[:2] == ["arbiter.example/g1", "7"]
    assert text.splitlines()[3].startswith("prev_hash ")
    opened = notes.open_note(signer.sign(text), [signer.verifier])
    assert notes.parse_checkpoint(opened.text) == receipt and receipt.kind == "receipt"
    plain = Checkpoint("arbiter.example/g1", 9, "ef" * 32)
    assert notes.parse_checkpoint(notes.checkpoint_text(plain)) == plain and plain.kind == "checkpoint"
    for bad in ("o\n7\n", "o\n07\n" + text.splitlines()[2] + "\n", "o\n7\nAAAA\n", "o\n7\n" + text.splitlines()[2]
                + "\nfoo bar\n"):
        with pytest.raises(NoteError):
            notes.parse_checkpoint(bad)
