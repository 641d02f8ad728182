"""The camera reader: cards recognised from pixels, and who could see their faces.

Needs the ``camera`` extra (numpy, opencv-python-headless, Pillow); the host
daemon never imports this package.

* :mod:`.geometry`: the table in metres, the seats' zones and hand planes, the
  cameras of one table (an overhead camera and one at each seat's eye line);
* :mod:`.deck`: what a card looks like (jumbo corner index, back) and the
  templates the recogniser matches;
* :mod:`.render`: frames of the simulated table from each camera's pose (Pillow),
  with lighting, blur, glare and occlusion;
* :mod:`.pipeline`: calibration from ArUco markers (``calibrate``: pose, focus,
  exposure, glare) and recognition of one frame into sightings;
* :mod:`.fuse`: one table's sightings from all cameras into card observations
  (zone, face, level, ``seen_by``, ``conf``);
* :mod:`.reader`: the simulated camera board (the real pipeline on rendered
  frames) speaking the wire protocol.
"""
