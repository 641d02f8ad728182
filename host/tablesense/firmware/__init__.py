"""The reader boards' firmware as the host handles it.

- ``build``: places what a board runs (the firmware and the onboard modules).
- ``bundle``: a build's files, their SHA-256 manifest and its signature.
- ``flasher``: puts a bundle on one reader over its wire (stage, install, confirm).
"""
