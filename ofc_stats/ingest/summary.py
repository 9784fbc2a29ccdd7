"""What one ingest did: :class:`IngestSummary`, the ``--json`` output and the lines
``ofc-stats ingest`` prints."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

EXAMPLES = 5  # problems the summary names one by one


@dataclass(frozen=True)
class IngestSummary:
    """What one ingest did. ``as_dict()`` gives the ``--json`` output."""

    warehouse: str
    files: int  # sources considered (files, and each member of a zip)
    files_read: int  # read this time (new, grown or changed)
    files_unchanged: int  # already imported completely and unchanged: not read
    files_failed: int  # unreadable, corrupt or of an unknown format (in rejects)
    files_ignored: int  # in folders, skipped for a suffix that is not a history's
    links_skipped: int  # links in folders leading out of them, not followed
    bytes_read: int
    hands_read: int  # good hands the readers produced
    hands_stored: int
    duplicates: int
    conflicts: int
    rejected: int  # rejects rows written, conflicts excluded
    problems_by_kind: dict[str, int]
    commits: int
    files_compacted: int
    seconds: float
    # The first few problems: "file:line: kind: reason" (the rejects table has all).
    examples: list[str] = field(default_factory=list)

    @property
    def hands_per_second(self) -> float:
        """Hands read per second of the whole run."""
        return self.hands_read / self.seconds if self.seconds > 0 else 0.0

    @property
    def megabytes_per_second(self) -> float:
        """Megabytes (10^6) read from disk per second."""
        return self.bytes_read / 1e6 / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        """Plain values, for JSON output."""
        values = asdict(self)
        values["hands_per_second"] = round(self.hands_per_second, 1)
        values["megabytes_per_second"] = round(self.megabytes_per_second, 2)
        return values

    def report(self) -> str:
        """The summary as a few lines of text."""
        details = [f"{self.files_read:,} read", f"{self.files_unchanged:,} unchanged"]
        if self.files_failed:
            details.append(f"{self.files_failed:,} failed")
        if self.files_ignored:
            details.append(f"{self.files_ignored:,} ignored: not history files")
        if self.links_skipped:
            details.append(f"{counted(self.links_skipped, 'link')} out of the folder not "
                           "followed: --follow-links reads them")
        head = (f"ingested {counted(self.files, 'file')} ({', '.join(details)}) into "
                f"{self.warehouse} in {self.seconds:.2f} s")
        if self.files == 0:
            ignored = (f" ({counted(self.files_ignored, 'file')} ignored: not history files, "
                       "by their suffixes; --format names a format to read them as)"
                       if self.files_ignored else "")
            return f"{head}\n  no history files found{ignored}: nothing to import"
        if self.files_read == 0:
            return f"{head}\n  nothing new: every file is as it was when last imported"
        unreadable = self.problems_by_kind.get("file", 0)
        files_set_aside = unreadable + self.problems_by_kind.get("format", 0)
        hands_set_aside = self.rejected - files_set_aside
        aside = [counted(hands_set_aside, "broken hand")] if hands_set_aside else []
        if files_set_aside:
            why = "not hand histories" if not unreadable else "unreadable or not histories"
            aside.append(f"{counted(files_set_aside, 'file')} ({why})")
        read = (f"{counted(self.hands_read, 'good hand')} read: {self.hands_stored:,} "
                f"stored, {counted(self.duplicates, 'duplicate')}, "
                f"{counted(self.conflicts, 'conflict')}" if self.hands_read else "no hands read")
        return (
            f"{head}\n  {read}" + (f"; {' and '.join(aside)} set aside" if aside else "")
            + "\n"
            f"  {self.hands_per_second:,.0f} hands/s, {self.megabytes_per_second:,.1f} MB/s "
            f"({self.bytes_read / 1e6:,.1f} MB read, {counted(self.commits, 'commit')})"
        )

    def problem_text(self) -> str | None:
        """One line about what was set aside, or None when nothing was."""
        total = self.rejected + self.conflicts
        if total == 0:
            return None
        kinds = ", ".join(f"{kind} {count}" for kind, count in
                          sorted(self.problems_by_kind.items(), key=lambda item: -item[1]))
        return f"{counted(total, 'problem')} set aside in the warehouse's rejects table ({kinds})"


def counted(number: int, noun: str) -> str:
    """``1 hand``, ``2,500 hands``."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
