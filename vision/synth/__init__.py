"""Synthetic card-table images with YOLO corner-index labels (training data and demo recordings).

Small, stable API:

* `vision.synth.decks.list_decks()` / `load_deck(name)` → a `Deck` (card → RGBA image, with
  `index_boxes[card]`), procedural decks always, Debian SVG decks when installed;
* `vision.synth.surfaces.list_surfaces()` / `make_surface(name, width, height, rng)` → BGR table;
* `vision.synth.scene.Placement(card, deck, center_xy, angle_deg, card_height_px, face_up=True)`
  and `render(placements, background, rng, hands=0, perspective=0.0, effects=True)` →
  `(image_bgr, [CornerLabel(card, class_name, box, visible), ...])`;
* `vision.synth.layouts.random_table(rng, width, height, decks, surface)` → placements for a
  plausible Rummy table (stock, discard pile, melds, loose cards, a fanned hand);
* `vision.synth.dataset.write_yolo_dataset(...)` writes images/labels for ultralytics.
"""
