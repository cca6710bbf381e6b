"""The game follower: the game's events from a stream of stable table observations (:class:`EventInferrer`).

Feed it the successive *stable* observations of one hand (:class:`~vision.observation.TableObservation` or its
dict); it answers with the events (:mod:`assistant.play.events` classes, dealer-relative seats) that lead from
the last table it accepted to the new one:

* the first full observation (a dealt table: no discards, no melds) -> :class:`Deal` (hidden hands as 13 ``bk``,
  bonus tiles set aside at the deal after ``|``, the dora indicators);
* a new discard -> ``Draw(seat, "bk")`` (the camera player's drawn tile is known: hand after = hand before +
  drawn - discarded) + ``Discard`` (``riichi`` when it lies sideways and the seat had not declared riichi);
* a discard taken into a new meld -> ``Chow`` / ``Pong`` / ``OpenKong`` in place of the next draw (the claimant
  from the sideways tile's source); a pong grown into a kong -> ``AddedKong``; a new concealed kong ->
  ``ClosedKong``; a North set aside -> ``Kita``; a new bonus tile -> ``BonusTile`` (then the replacement draw);
  a Fei in the bonus area -> ``SinkFei``; a Fei in a meld replaced by its tile -> ``SwapFei``; a new dora
  indicator -> ``NewDora`` (right after the kong that turned it);
* hidden hands laid face up: the hand is over -> a ``Reveal(seat, tiles, drawn)`` for each (winners first;
  ``drawn``: a tsumo winner's face-down draw, the tile set apart at the right), then ``Tsumo`` (the turn seat's
  14 tiles win), ``Ron`` (13 tiles the open tile completes; the camera player's own win when no revealed hand
  wins and its hand does, as when three-kaki losers show their hands) or ``ExhaustiveDraw(tenpai)`` (the ready
  hands shown, and the camera player's when ready);
* :meth:`EventInferrer.finish` (the hand is over, the table is being cleared) -> what the table cannot show:
  the camera player's own Tsumo (its hand is always face up), else ``ExhaustiveDraw`` (nobody showed a ready
  hand; the camera player listed when ready). A ron shows: a lone winner takes the discard into its hand.

The other players' hand sizes are not trusted (a standing hand may be out of sight): their draws are inferred
from what they do next.

The engine is the only keeper of the rules: the state followed is :class:`assistant.play.PlayState`, and every
event is one :func:`assistant.play.apply` accepted. Vision only proposes: one function per kind of move
(:data:`.moves.MOVES`) offers the candidate events that the difference between what the state shows the camera
(:func:`.views.engine_view`: called discards gone from their rows, hidden hands as backs ...) and the new
observation suggests, and the engine judges each (whose turn, what a call must contain, copies left, whether a
hand wins). Several moves between two observations (a frame missed) are put in turn order: a small breadth-first
search over the accepted candidates finds the shortest sequence that leads to a state showing the new table. An
impossible change (a discard vanished without a meld, a row or meld that changed, a fifth copy, a hand a tile
short, a tile kind the rule system lacks, nothing in turn order explains it) becomes a problem in plain words
(:attr:`EventInferrer.problems`); nothing is inferred from that observation, and the next consistent one resumes
from the last accepted state.

One bad tile does not stop the hand: a discard, meld, tile set aside or dora indicator already followed keeps its
followed reading when a later frame reads it as another tile (:func:`.repairs.with_followed_readings`), and an
observation problem confined to a part of a seat (a tile that cannot lie in a bonus area, a fifth copy in a row
...) leaves that part as the state shows it while the rest of the frame is followed
(:func:`.repairs.with_problem_parts_pending`); the problem is still reported. A followed discard read as the same
other tile for :data:`.corrections.DISPUTE_FRAMES` frames in a row (a user's correction, a better view) takes that
reading: its event is rewritten and the engine replays the hand (:attr:`EventInferrer.corrected`).

A tile of the camera player's hand the detector misses in a frame does not stop it either
(:func:`.views.with_missed_tiles`): a hand one or two tiles short of a size the rule system holds, every tile it
shows the followed hand's, is followed with those tiles unseen (the state's hand shows them and may hold them);
the next frames, while they still lack the tile, are followed so too, even once the hand draws or calls again.
A frame whose camera hand counts too few or too many tiles otherwise (tiles missed and misread: a seat camera's
own hand, small and blurred) is followed with that hand as followed, the problem said
(:data:`.inferrer.CAMERA_HAND_PENDING`): the others' moves are taken then, the camera player's own when a frame
reads its hand again.

A tile of the camera player's hand read wrongly so far is re-read when the table shows what it is (the user's
correction, or its discard): the event that brought it in is corrected, the engine replays the hand, the
change is explained again (:attr:`EventInferrer.rereads`) and :class:`TableGame` follows the replayed hand.

A deal is not all-or-nothing (:mod:`.deal`): a tile of the deal read unsurely (the camera player's hand, a
bonus area, the dora indicator) is dealt with its top reading and kept as a doubt with its other readings
(:attr:`EventInferrer.doubted`); later frames (their readings summed), its discard, the copies in the set and
the engine's refusals settle it, and where it is settled otherwise the deal is rewritten and the engine
replays the hand (:attr:`EventInferrer.settled`, said in players' words). A table first seen already played
is dealt when the camera player has not played yet (its hand is the dealt one; the search explains the rest),
and a dealt table of a rule system that turns a dora indicator but shows none is dealt without it: the first
one the table shows is the deal's (the deal rewritten, the hand replayed). A call laid
where the caller's tiles set aside lie (its claimed tile often missed) is taken from the discard it took.

``mahjong-assistant eval-video`` (:mod:`evaluation.video`) measures it on generated videos of whole hands
(:mod:`datasets.hand_video`).

The package, in the order a frame goes through it:

* :mod:`.tile_codes`: tile codes as the follower handles them (canonical hand text, plain fives, sorting);
* :mod:`.views`: seat views, what a table shows the camera, of an observation or of an engine state;
* :mod:`.moves`: candidate moves, the events the difference between two views suggests;
* :mod:`.endings`: the moves that end a hand (reveals, tsumo, ron, exhaustive draw);
* :mod:`.search`: the engine plays each candidate, a breadth-first search finds the shortest sequence;
* :mod:`.checks`: what a new observation cannot show after the followed table, in plain words;
* :mod:`.repairs`: readings already followed kept, parts with a problem left pending;
* :mod:`.corrections`: the followed log rewritten where an earlier reading turns out wrong;
* :mod:`.alternatives`: other readings of a frame the game may explain (a tile's alternatives, a call);
* :mod:`.deal`: the deal's doubtful tiles, and the evidence that settles them;
* :mod:`.inferrer`: :class:`EventInferrer`, which puts them together frame by frame;
* :mod:`.game`: :class:`TableGame`, the followed game, its states, win and hand logs.

A followed log is compared with a script's by :func:`evaluation.logs.compare_logs` (evaluation, not run time).
"""

from .checks import CHECKS
from .corrections import DISPUTE_FRAMES
from .game import TableGame
from .inferrer import NEW_DEAL_TILES, EventInferrer, EventProblem
from .moves import MOVES
from .search import explain
from .tile_codes import SEAT_WINDS, hand_text

__all__ = ["CHECKS", "DISPUTE_FRAMES", "MOVES", "NEW_DEAL_TILES", "SEAT_WINDS", "EventInferrer", "EventProblem",
           "TableGame", "explain", "hand_text"]
