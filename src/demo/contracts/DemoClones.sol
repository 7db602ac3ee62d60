// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";

/// @title A note with an owner: the implementation behind the demo's EIP-1167 minimal proxies.
contract DemoNote is Initializable {
    address public owner;
    string public note;

    event NoteChanged(address indexed owner, string note);

    error NotOwner(address caller);

    constructor() {
        // Only clones are initialised; the implementation stays ownerless.
        _disableInitializers();
    }

    function initialize(address owner_, string calldata note_) external initializer {
        owner = owner_;
        note = note_;
    }

    function setNote(string calldata note_) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        note = note_;
        emit NoteChanged(msg.sender, note_);
    }
}

/// @title Creates EIP-1167 minimal proxies (OpenZeppelin `Clones`) of one `DemoNote`, owned by their creator.
contract DemoNoteFactory {
    address public immutable implementation;

    event NoteCreated(address indexed owner, address note);

    constructor(address implementation_) {
        implementation = implementation_;
    }

    function createNote(string calldata note) external returns (address clone) {
        clone = Clones.clone(implementation);
        DemoNote(clone).initialize(msg.sender, note);
        emit NoteCreated(msg.sender, clone);
    }
}
