"""The camera reader: cards recognised from pixels, and who could see their faces.

Needs the ``camera`` extra (numpy, opencv-python-headless, Pillow); the host
daemon never imports this package.

* :mod:`.geometry`: the table in metres, the seats' zones and hand planes, the
  cameras of one table (overhead, floor, and one at each seat's eye line), and
  the px/mm each gives where it reads;
* :mod:`.deck`: what a card looks like (jumbo corner index, back) and the
  templates the recogniser matches;
* :mod:`.render`: frames of the simulated table from each camera's pose (Pillow),
  with lighting, blur, glare and occlusion;
* :mod:`.pipeline`: calibration from ArUco markers (``calibrate``: pose, focus,
  exposure, glare) and recognition of one frame into sightings;
* :mod:`.indexes`: where corner indices may be in any image (rank and suit ink
  blobs, any rotation, either corner), cut out as upright patches;
* :mod:`.classify`: the learned classifier (``data/index.onnx``, OpenCV's DNN)
  that names a patch's card or abstains below its calibrated confidence;
* :mod:`.photo`: the cards of any photo, and the deal of four hands laid out
  (``tablesense vision read``);
* :mod:`.synth`, :mod:`.art`: training scenes from published deck designs and
  fonts (``scripts/train-recogniser``; docs/recogniser.md);
* :mod:`.fuse`: one table's sightings from all cameras into card observations
  (zone, face, level, ``seen_by``, ``conf``);
* :mod:`.board`: what either board does with its frames: read, fuse, debounce,
  OBSERVE fields;
* :mod:`.reader`: the simulated camera board (the real pipeline on rendered
  frames) speaking the wire protocol;
* :mod:`.capture`, :mod:`.live`, :mod:`.wires`: the real camera board
  (``tablesense camera``): frames from V4L2 devices, streams or video files
  through OpenCV's VideoCapture, poses from the plate or a poses file, and the
  ports it speaks on besides a pty (a serial port, a TCP port for socket://);
* :mod:`.plate`: the calibration plate to print, at true size.
"""
