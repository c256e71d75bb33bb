"""Cards the camera is unsure of or cannot name: each look's second choices in the vote, the names the rules
allow tried when the camera's are refused, cards found but not named ("?"), and the players' answers."""

import numpy as np

from referee import Match
from vision.detector import UNKNOWN, unknown_cards, with_alternatives
from vision.evaluation import TruthfulTable
from vision.observer import Observer
from vision.snapshot import Group, TableSnapshot
from vision.stability import StabilityConfig, Stabilizer
from vision.types import CORNER_CLASSES, CardDetection

PLAYERS = ["Ana", "Ben", "Cleo"]
MATCH = {"type": "match", "rules": "basic", "players": PLAYERS}
BOX = (100.0, 100.0, 130.0, 140.0)


def scores(**named):
    v = np.zeros(len(CORNER_CLASSES), np.float32)
    for k, p in named.items():
        v[CORNER_CLASSES.index(k.lstrip("_"))] = p
    return v


def snap(discard=(), conf=None, alts=None, **zones):
    players = {p: tuple(Group(tuple(g), (0, 0, 1, 1)) for g in zones.get(p, [])) for p in PLAYERS}
    return TableSnapshot(discard=tuple(discard), players=players, confidence=conf or {}, alternatives=alts or {})


def test_each_card_carries_its_corners_second_choices():
    [card] = with_alternatives([CardDetection("7S", 0.5, BOX, (BOX,))], [("7S", 0.5, BOX, scores(_7S=0.5, _7C=0.3, _8S=0.1))])
    assert card.alternatives == (("7C", 0.3), ("8S", 0.1))


def test_second_choices_make_a_vote_unsure_and_rank_the_other_names():
    s = Stabilizer(StabilityConfig())
    sure = CardDetection("7S", 0.9, BOX)
    torn = CardDetection("7S", 0.45, BOX, alternatives=(("7C", 0.4),))
    assert [d.confidence for d in [s.update([sure]) for _ in range(4)][-1]] == [1.0]
    s = Stabilizer(StabilityConfig())
    for _ in range(4):
        out = s.update([torn])
    [d] = out
    assert d.card == "7S" and d.confidence < 0.6 and d.alternatives[0][0] == "7C"


def test_a_card_not_named_is_one_card_of_its_own_unless_it_is_a_named_cards_other_index():
    far = (400.0, 100.0, 430.0, 140.0)
    named = [CardDetection("7S", 0.9, BOX, (BOX,))]
    got = unknown_cards([("NONE", 0.6, far, scores(_9H=0.12, _9D=0.08)),
                         ("NONE", 0.6, (105.0, 105.0, 125.0, 135.0), scores(_9H=0.2)),  # inside the 7S
                         ("NONE", 0.6, (200.0, 100.0, 230.0, 140.0), scores(_7S=0.15)),  # the 7S's other index
                         ("NONE", 0.6, (600.0, 100.0, 630.0, 140.0), scores(_2C=0.001))],  # sure it is no index
                        named)
    assert [(c.card, c.box, c.alternatives[0][0]) for c in got] == [(UNKNOWN, far, "9H")]


def test_a_track_read_once_keeps_its_name_and_a_card_never_named_gets_a_number():
    s = Stabilizer(StabilityConfig())
    seven = CardDetection("7S", 0.9, BOX)
    blur = CardDetection(UNKNOWN, 0.5, BOX, alternatives=(("7C", 0.05),))
    other = CardDetection(UNKNOWN, 0.5, (400.0, 100.0, 430.0, 140.0), alternatives=(("9H", 0.05),))
    for _ in range(3):
        s.update([seven])
    for _ in range(10):
        out = s.update([blur, other])
    names = sorted(d.card for d in out)
    assert names[0] == "7S" and names[1].startswith(UNKNOWN) and names[1] != UNKNOWN


def observer(**kw):
    return Observer(Match(MATCH), "Ana", **kw)


def test_a_meld_the_rules_refuse_is_asked_with_the_names_they_allow_and_confirmed():
    o = observer()
    o.observe(snap(["5C"]))
    # the camera reads 7S 7D 8S; its vote also saw the 8S as a 7C: the only legal meld
    out = o.observe(snap(["5C"], conf={"8S": 0.55}, alts={"8S": (("7C", 0.4), ("9S", 0.1))}, Ben=[["7S", "7D", "8S"]]))
    q = [x for x in out if x.get("proposed")][-1]
    assert sorted(q["event"]["cards"]) == ["7C", "7D", "7S"] and "is it" in q["message"]
    assert o.confirm(q["id"])["ok"]
    assert sorted(o.referee.events[-1]["cards"]) == ["7C", "7D", "7S"]
    # the camera still calls that card 8S: it is read as the 7C now, not taken for a new card
    o.observe(snap(["5C", "KD"], conf={"8S": 0.55}, alts={"8S": (("7C", 0.4),)}, Ben=[["7S", "7D", "8S"]]))
    assert o.referee.events[-1] == {"type": "discard", "player": "Ben", "card": "KD"}


def test_a_meld_with_a_card_not_named_is_asked_with_a_card_the_rules_allow():
    o = observer()
    o.observe(snap(["5C"]))
    out = o.observe(snap(["5C"], conf={"?7": 0.0}, alts={"?7": (("8C", 0.1), ("8H", 0.08))}, Ben=[["7H", "?7", "9H"]]))
    q = [x for x in out if x.get("proposed")][-1]
    assert q["event"]["cards"] == ["7H", "8H", "9H"]  # 8C is its first guess, but only 8H makes a meld
    assert "could not read" in q["message"]


def test_a_discard_with_two_new_cards_left_in_the_zone_asks_for_the_meld_card_not_seen():
    o = observer()
    o.observe(snap(["5C"]))
    assert o.observe(snap(["5C"], Ben=[["7H", "9H"]])) == []  # still being laid out
    out = o.observe(snap(["5C", "KD"], Ben=[["7H", "9H"]]))
    q = [x for x in out if x.get("proposed")][-1]
    assert q["event"] == {"type": "meld", "player": "Ben", "cards": ["7H", "9H", "8H"]}
    [p] = o.pending()
    assert p["box"] == [0, 0, 1, 1]  # the part of the table to look at
    out = o.correct(p["id"], {"type": "meld", "player": "Ben", "cards": ["7H", "8H", "9H", "10H"]})
    assert out["ok"] and o.referee.events[-1]["type"] == "discard"  # then the discard that was waiting


def test_an_unnamed_card_under_the_top_of_the_pile_is_not_a_new_discard():
    o = observer()
    o.observe(snap(["5C"]))
    assert o.observe(snap(["?3", "5C"])) == []


def test_the_truthful_table_confirms_right_guesses_and_corrects_wrong_ones():
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C"], Ben=[["7H", "9H"]]))
    o.observe(snap(["5C", "KD"], Ben=[["7H", "9H"]]))
    table = TruthfulTable([{"type": "meld", "player": "Ben", "cards": ["10H", "9H", "8H", "7H"]}])
    # the players see four cards where the camera saw two (the group's box is (0, 0, 1, 1)), and the stock's back
    truth = [("7H", (0, 0, .2, .5), ()), ("8H", (.3, 0, .5, .5), ()), ("9H", (.6, 0, .8, .5), ()),
             ("10H", (1.1, 0, 1.3, .5), ()), ("BACK", (0, 0, 1, 1), ()), ("2S", (5, 5, 6, 6), ())]
    table.answer(o, [], truth)
    assert (table.questions, table.corrected, table.confirmed) == (1, 1, 0)
    meld = next(e for e in o.referee.events if e["type"] == "meld")
    assert sorted(meld["cards"]) == ["10H", "7H", "8H", "9H"] and table.taps == 2 + 1  # open the picker, add the 10H, send


def test_the_truthful_table_says_no_to_a_move_the_hand_never_had():
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C", "KD"], conf={"KD": 0.5}))
    table = TruthfulTable([{"type": "discard", "player": "Ben", "card": "QD"}])
    table.answer(o, [CardDetection("KD", 0.5, (0, 0, 1, 1))], [("KD", (0, 0, 1, 1), ())])
    assert (table.questions, table.rejected, table.taps) == (1, 1, 1) and o.pending() == []
    assert [e["type"] for e in o.referee.events] == ["deal", "draw"]  # the draw was never in doubt


def test_the_truthful_table_names_each_card_of_a_fan_once():
    """One index box lies on two cards of a fan (the nearer claim wins): each of the camera's cards is given a
    card of its own, so a right meld is confirmed, not taken for a meld with one card twice."""
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C"], conf={"7H": 0.5}, Ben=[["7H", "8H", "9H"]]))
    [q] = o.pending()
    table = TruthfulTable([{"type": "meld", "player": "Ben", "cards": ["7H", "8H", "9H"]}])
    stable = [CardDetection("7H", 0.5, (4, 0, 40, 40)), CardDetection("8H", 0.9, (20, 0, 42, 40)),
              CardDetection("9H", 0.9, (40, 0, 60, 40))]
    truth = [("7H", (0, 0, 20, 40), ()), ("8H", (20, 0, 40, 40), ()), ("9H", (40, 0, 100, 80), ())]
    assert TruthfulTable._true_name("7H", stable, truth, {}) == "8H"  # alone, its centre lies on the 8H
    table.answer(o, stable, truth)
    assert (table.questions, table.confirmed, table.rejected) == (1, 1, 0)


def test_the_truthful_table_says_which_meld_lies_where_the_camera_read_a_card_twice():
    """The camera reads the 9H's other index as 9D and misses the 8H: the players, shown those cards, say the
    meld is 7H 8H 9H."""
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C"], conf={"9D": 0.5}, Ben=[["7H", "9H", "9D"]]))
    [q] = o.pending()
    table = TruthfulTable([{"type": "meld", "player": "Ben", "cards": ["7H", "8H", "9H"]}])
    stable = [CardDetection("7H", 0.9, (0, 0, 20, 40)), CardDetection("9H", 0.9, (40, 0, 60, 40)),
              CardDetection("9D", 0.5, (90, 50, 100, 80))]
    truth = [("7H", (0, 0, 20, 40), ()), ("8H", (20, 0, 40, 40), ()), ("9H", (40, 0, 100, 80), ())]
    table.answer(o, stable, truth)
    assert (table.questions, table.corrected) == (1, 1)
    meld = next(e for e in o.referee.events if e["type"] == "meld")
    assert sorted(meld["cards"]) == ["7H", "8H", "9H"]


def test_the_picture_of_a_question_holds_the_part_of_the_table_where_a_card_was_not_seen():
    import cv2

    from vision.pipeline import crop_cards

    img = np.full((720, 1280, 3), 60, np.uint8)
    seen = [CardDetection("7H", 0.9, (600.0, 300.0, 620.0, 340.0))]
    alone = cv2.imdecode(np.frombuffer(crop_cards(img, seen, ["7H"]), np.uint8), cv2.IMREAD_COLOR)
    wider = cv2.imdecode(np.frombuffer(crop_cards(img, seen, ["7H"], extra_boxes=[(600, 300, 700, 340)]), np.uint8),
                         cv2.IMREAD_COLOR)
    assert wider.shape[1] > alone.shape[1] and wider.shape[1] < 1280


def test_the_live_table_takes_the_unsure_reads_and_offline_tracking_does_not():
    from vision.detector import Detector
    from vision.layout import Layout
    from vision.pipeline import UNSURE_FLOOR, TableTracker
    from vision.synth.recording import layout_dict

    layout = Layout.from_dict(layout_dict(PLAYERS, 0.2, False))
    live = TableTracker(layout, Match(MATCH), "Ana", Detector(), auto_confirm=False)
    offline = TableTracker(layout, Match(MATCH), "Ana", Detector(), auto_confirm=True)
    assert live.detector.floor == UNSURE_FLOOR and offline.detector.floor is None
    frame = np.full((360, 640, 3), 90, np.uint8)
    assert live.detector.detect(frame) == [] and offline.detector.detect(frame) == []  # an empty table


def test_the_trace_shows_each_snapshot_outcome_and_answer_in_order():
    """`python -m vision.evaluation --trace`: a line for each new stable snapshot, printed before the outcomes
    it caused, and for each answer of the stand-in players."""
    import io

    from vision.evaluation import Tracer

    out = io.StringIO()
    o = observer()
    tracer = Tracer(out)
    tracer.attach(o)
    o.observe(snap(["5C"]))
    tracer.frame(o)
    tracer.frame(o)  # the same snapshot again: no new line
    o.observe(snap(["5C", "KD"], conf={"KD": 0.5}))
    tracer.frame(o)
    table = TruthfulTable([{"type": "discard", "player": "Ben", "card": "QD"}], tracer)
    table.answer(o, [CardDetection("KD", 0.5, (0, 0, 1, 1))], [("KD", (0, 0, 1, 1), ())])
    lines = out.getvalue().splitlines()
    assert [ln.split()[0] for ln in lines] == ["S", "O", "S", "O", "O", "Q"]
    assert lines[0].startswith("S 1 pile=['5C']") and '"upcard": "5C"' in lines[1]
    assert lines[2].startswith("S 2 pile=['5C', 'KD']") and "'KD': 0.5" in lines[2]
    assert lines[3].startswith("O applied") and lines[4].startswith("O proposed") and '"KD"' in lines[4]
    assert lines[5].startswith("Q No")


def test_the_truthful_table_says_yes_to_a_move_named_as_it_was_played_wherever_the_camera_read_it():
    """The demo with the round-six localiser (stop 43): "Ben discards KD?" when Ben did discard the KD, but the
    camera's KD box lies on another card (a box straddling indices). People answer the question they are asked:
    Yes. Before, each name was looked up where the camera read it, and the stand-ins said No."""
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C", "KD"], conf={"KD": 0.5}))
    table = TruthfulTable([{"type": "discard", "player": "Ben", "card": "KD"}])
    table.answer(o, [CardDetection("KD", 0.5, (0, 0, 1, 1))], [("QD", (0, 0, 1, 1), ()), ("KD", (5, 5, 6, 6), ())])
    assert (table.questions, table.confirmed, table.rejected, table.taps) == (1, 1, 0, 1) and o.pending() == []
    assert o.referee.events[-1] == {"type": "discard", "player": "Ben", "card": "KD"}


def test_a_floor_at_the_threshold_still_shows_the_cards_not_named():
    """A taught deck's own threshold may be the table's floor (0.3, `TAUGHT_FLOOR`, now that enrolment chooses it
    by F1): the cards the classifier cannot name are still shown as "?" when `unknown_from` asks for them, and a
    floor above the threshold never raises it."""
    from vision.detector import Detector

    det = Detector.__new__(Detector)
    det.classifier, det.small_ratio, det.decks = object(), 0.0, 1
    det._bgr = lambda frame: frame
    far = (400.0, 100.0, 430.0, 140.0)
    named = [(("7H", 0.9, BOX, scores(_7H=0.9)), 0.8), (("NONE", 0.7, far, scores(_8H=0.2)), 0.6)]
    det._named_boxes = lambda frame: named
    det.scored_candidates = lambda frame: [c for c, _ in named]
    for conf, floor in ((0.3, 0.3), (0.3, 0.5)):
        det.conf, det.floor, det.unknown_from = conf, floor, 0.5
        cards = det.detect(np.zeros((8, 8, 3), np.uint8))
        assert sorted(c.card for c in cards) == sorted(["7H", UNKNOWN]), (conf, floor)
    det.unknown_from = None
    assert [c.card for c in det.detect(np.zeros((8, 8, 3), np.uint8))] == ["7H"]
