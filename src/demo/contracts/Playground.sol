// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Exercises call-tree shapes an indexer must handle: nested calls, internal value transfers,
/// CREATE, CREATE2, SELFDESTRUCT, reverts with reasons and custom errors, and caught inner reverts.
contract Playground {
    Relay public immutable relay;

    event ValueSplit(address indexed sender, uint256 total, uint256 recipients);
    event ChildCreated(address indexed child, bool viaCreate2, bytes32 salt);
    event InnerCallFailed(string reason);

    error RequestedFailure(address caller, uint256 code);

    constructor() {
        // Created here so the Playground deployment itself contains an inner CREATE.
        relay = new Relay();
    }

    receive() external payable {}

    /// Playground -> Relay -> Playground -> Relay ... `depth` times, then back up.
    function nestedCalls(uint256 depth) external returns (uint256) {
        return relay.bounce(depth);
    }

    function bounceBack(uint256 depth) external returns (uint256) {
        require(msg.sender == address(relay), "Playground: only relay");
        return relay.bounce(depth);
    }

    /// Splits msg.value evenly; each share is an internal value transfer.
    function split(address payable[] calldata recipients) external payable {
        uint256 share = msg.value / recipients.length;
        for (uint256 i = 0; i < recipients.length; i++) {
            (bool sent,) = recipients[i].call{value: share}("");
            require(sent, "Playground: transfer failed");
        }
        emit ValueSplit(msg.sender, msg.value, recipients.length);
    }

    function createChild() external payable returns (Child child) {
        child = new Child{value: msg.value}();
        emit ChildCreated(address(child), false, bytes32(0));
    }

    function createChild2(bytes32 salt) external payable returns (Child child) {
        child = new Child{value: msg.value, salt: salt}();
        emit ChildCreated(address(child), true, salt);
    }

    /// Creates a contract that self-destructs in its constructor, so Cancun really deletes it.
    function createAndDestroy() external payable {
        new Ephemeral{value: msg.value}(payable(msg.sender));
    }

    /// Self-destructs an older child: after Cancun this only moves its balance.
    function destroyChild(Child child) external {
        child.destroy(payable(msg.sender));
    }

    function failWithReason() external pure {
        revert("Playground: requested failure");
    }

    function failWithCustomError(uint256 code) external view {
        revert RequestedFailure(msg.sender, code);
    }

    /// The inner call reverts but is caught, so the transaction succeeds with a failed inner frame.
    function catchInnerFailure() external returns (string memory reason) {
        try relay.fail() {
            reason = "";
        } catch Error(string memory innerReason) {
            reason = innerReason;
            emit InnerCallFailed(innerReason);
        }
    }
}

/// @title Second hop of Playground's nested calls.
contract Relay {
    event Bounced(address indexed from, uint256 depth);

    function bounce(uint256 depth) external returns (uint256) {
        emit Bounced(msg.sender, depth);
        if (depth == 0) return 0;
        return Playground(payable(msg.sender)).bounceBack(depth - 1) + 1;
    }

    function fail() external pure {
        revert("Relay: inner failure");
    }
}

/// @title Contract created by Playground with CREATE or CREATE2.
contract Child {
    address public immutable creator;

    constructor() payable {
        creator = msg.sender;
    }

    function destroy(address payable beneficiary) external {
        require(msg.sender == creator, "Child: only creator");
        selfdestruct(beneficiary);
    }
}

/// @title Lives only inside its creating transaction.
contract Ephemeral {
    constructor(address payable beneficiary) payable {
        selfdestruct(beneficiary);
    }
}
